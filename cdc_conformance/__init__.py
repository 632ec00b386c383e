"""cdc-conformance: the suite's one import namespace.

The repository keeps the folders its client asked for (conformance/, generators/, golden/, harness/, plus the
reference normalizer in normalizer/); the build maps each into this package (pyproject.toml, package-dir), so that
the wheel installs nothing but `cdc_conformance` into a user's environment, where a user's own `normalizer`,
`harness` or `generators` package keeps its name.
"""
