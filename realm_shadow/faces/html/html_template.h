// realm_shadow/faces/html/html_template.h - the page template, compiled in.
//
// map.html, map.css and the script parts in page/ (one script, in the order
// faces/CMakeLists.txt gives) are copied into a
// generated source at build time (embed_template.cmake), so the page
// written by realm-shadow needs no file beside the binary.  map.html holds
// four markers: /*@MAP_CSS@*/, /*@MAP_JS@*/, @MAP_DATA@ (before the script)
// and @MAP_HISTORY@ (after it).
#ifndef REALM_SHADOW_FACES_HTML_HTML_TEMPLATE_H_
#define REALM_SHADOW_FACES_HTML_HTML_TEMPLATE_H_

namespace realm_shadow {
namespace html {

extern const char kMapHtml[];
extern const char kMapCss[];
extern const char kMapJs[];

}  // namespace html
}  // namespace realm_shadow

#endif  // REALM_SHADOW_FACES_HTML_HTML_TEMPLATE_H_
