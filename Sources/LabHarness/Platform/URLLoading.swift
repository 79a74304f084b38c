// URLSession and its types live in Foundation on Darwin and in FoundationNetworking elsewhere.
// Re-exported here, the one place for platform branches, so an experiment that measures
// URLSession imports LabHarness and needs no branch of its own.
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
