/* ca_bundle.h — where a host keeps the CAs it trusts: the PEM bundle files of Debian/Ubuntu,
 * RHEL/Fedora, SUSE and Alpine, in that order, or the hashed directory /etc/ssl/certs. */
#ifndef V8WALK_CA_BUNDLE_H
#define V8WALK_CA_BUNDLE_H

#include <stdbool.h>

/* The bundle files looked for, NULL-terminated (for the error line that names them). */
extern const char *const ca_bundle_files[];
extern const char *const ca_bundle_dir;

/* SSL_CERT_FILE when set, else the first of ca_bundle_files that is a readable file; NULL when
 * none is (the caller then tries ca_bundle_dir). */
const char *ca_bundle_find(void);

#endif
