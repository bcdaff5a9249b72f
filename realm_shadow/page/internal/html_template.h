// realm_shadow/page/internal/html_template.h - the page template, compiled in.
//
// map.html, map.css and the script parts in page/ (one script, in the order
// page/CMakeLists.txt gives) are copied into a
// generated source at build time (embed_template.cmake), so the page
// written by realm-shadow needs no file beside the binary.  map.html holds
// four markers: /*@MAP_CSS@*/, /*@MAP_JS@*/, @MAP_DATA@ (before the script)
// and @MAP_HISTORY@ (after it).
#ifndef REALM_SHADOW_PAGE_INTERNAL_HTML_TEMPLATE_H_
#define REALM_SHADOW_PAGE_INTERNAL_HTML_TEMPLATE_H_

#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(page);
namespace html {

extern const char kMapHtml[];
extern const char kMapCss[];
extern const char kMapJs[];

}  // namespace html
}  // namespace realm_shadow

#endif  // REALM_SHADOW_PAGE_INTERNAL_HTML_TEMPLATE_H_
