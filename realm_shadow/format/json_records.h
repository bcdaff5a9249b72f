// realm_shadow/format/json_records.h - the records both JSON
// renderings of a dump write alike: the dump's JSON (json.cc,
// docs/json-schema.md) and the memory map page's data block
// (page/html_page.cc).  Each writes the named fields into the object
// the caller has begun; the caller adds what only its document has.
//
// Layer format.
#ifndef REALM_SHADOW_FORMAT_JSON_RECORDS_H_
#define REALM_SHADOW_FORMAT_JSON_RECORDS_H_

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/format/json_writer.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(format);

// used, total_free, largest_hole, hole_count, allocation_count,
// fragmentation.
void WriteSummaryFields(JsonWriter& w, const FreeSummary& summary);
// found, fits_already, window_offset, window_end, placement, bytes_to_free.
void WriteWindowFields(JsonWriter& w, const BlockerWindow& window);
// instance, size, alignment, planned_offset (null: none), sequence.
void WritePendingFields(JsonWriter& w, const PendingRequest& p);
// id, offset (null: an amount), size, sequence.
void WriteReservationFields(JsonWriter& w, const Reservation& r);
// instance, size, alignment, eventual, sequence.
void WriteFailureFields(JsonWriter& w, const Failure& f);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_FORMAT_JSON_RECORDS_H_
