/* ca_bundle.c — the host's CA bundle (ca_bundle.h). */
#include "ca_bundle.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const ca_bundle_files[] = {
	"/etc/ssl/certs/ca-certificates.crt",                /* Debian, Ubuntu, Arch, Gentoo, Alpine */
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", /* RHEL 7+, Fedora, CentOS */
	"/etc/pki/tls/certs/ca-bundle.crt",                  /* RHEL 6, older Fedora */
	"/var/lib/ca-certificates/ca-bundle.pem",            /* SUSE 15 */
	"/etc/ssl/ca-bundle.pem",                            /* openSUSE, SLES 12 */
	"/etc/ssl/cert.pem",                                 /* Alpine, BSD style */
	NULL,
};

const char *const ca_bundle_dir = "/etc/ssl/certs";

static bool readable_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	       access(path, R_OK) == 0;
}

const char *ca_bundle_find(void)
{
	const char *env = getenv("SSL_CERT_FILE");
	if (env && env[0])
		return env;
	for (size_t i = 0; ca_bundle_files[i]; i++)
		if (readable_file(ca_bundle_files[i]))
			return ca_bundle_files[i];
	return NULL;
}
