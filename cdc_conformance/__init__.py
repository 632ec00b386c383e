"""cdc-conformance: the suite's one import namespace.

The repository keeps the folders its client asked for (conformance/, generators/, golden/, harness/, plus the
reference normalizer in normalizer/); each is a subpackage of this one through a relative link in this folder
(cdc_conformance/harness -> ../harness), so `cdc_conformance.a.b` is the file cdc_conformance/a/b.py for any tool that
reads paths, and this folder is the one list of the parts. The wheel installs nothing but `cdc_conformance` into a
user's environment, where a user's own `normalizer`, `harness` or `generators` package keeps its name.
"""
