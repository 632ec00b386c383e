from cdc_conformance.harness.cli import main

main()
