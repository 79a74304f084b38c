import LabRunner

LabCommandLine.main(catalog: .standard)
