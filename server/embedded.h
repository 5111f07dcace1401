// Files compiled into the server (server/embedded.cc.in): no file system lookups at run time.
#ifndef RPSUM_SERVER_EMBEDDED_H_
#define RPSUM_SERVER_EMBEDDED_H_

namespace rpsum::server {

// server/openapi.json, as committed (server/make_openapi.py writes it from the proto).
const char* OpenApiJson();

// server/page.html: the page at / (paste a document, see what the model picks).
const char* PageHtml();

}  // namespace rpsum::server

#endif  // RPSUM_SERVER_EMBEDDED_H_
