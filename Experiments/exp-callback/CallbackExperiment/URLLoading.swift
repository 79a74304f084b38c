// URLSession and its types live in Foundation on Darwin and in FoundationNetworking elsewhere.
// Re-exported here, the one place for that platform difference, so the experiment's files and
// its tests import CallbackExperiment and need no branch of their own.
//
// Only this experiment imports it: on Linux FoundationNetworking brings libcurl and about thirty
// shared libraries of its own (TLS, Kerberos, LDAP), which the dynamic loader maps and relocates
// at every process start. Imported by the harness, every experiment's trial child paid for them.
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
