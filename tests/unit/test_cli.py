"""CLI misuse: one line on stderr and exit code 2 (in this process, `conftest.cli_here`: the misuse is found before any
JVM starts; one misuse runs as a real process, to prove the entry point prints the one line)."""
import subprocess
import sys

import pytest


def _cli(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "cdc_conformance.harness", *args], capture_output=True, text=True, timeout=120, cwd=cwd, env=env)


@pytest.mark.parametrize("args, message", [
    (["run", "--bogus"], "No such option"),
    (["run", "--case", "no-such-case"], "no such case: no-such-case"),
    (["run", "--broker", "zookeeper"], "Invalid value for '--broker'"),
    (["run", "--broker", "external"], "--broker external needs --bootstrap-servers"),
    (["run", "--format", "nope"], "no such format: nope (one of canal-json,"),
    (["run", "--format", "ces-avro", "--case", "canal-json-delete"], "the selection matches no case"),
    (["run", "--case", "canal-json-delete", "--shard", "2/2"], "--shard 2/2: the shard holds no case"),
    (["frobnicate"], "No such command"),
    (["bench", "--all", "--format", "ces-json"], "give either --all or --format"),
    (["bench", "--messages", "10"], "Invalid value for '--messages'"),
    (["bench", "--state-store", "rocksdb"], "--state-store is a streaming query's setting: give it with --streaming"),
    (["bench", "--streaming", "--profile", "reports/profile"], "--profile profiles batch passes: give it without --streaming"),
    (["certify"], "give one of FORMAT@VERSION, --all or --check"),
    (["certify", "nope@1"], "no format version nope@1"),
    (["certify", "debezium-json@3.2", "--check"], "give one of"),
    (["certify", "--all", "--check"], "give one of"),
    (["certify", "debezium-json@3.2", "--normalizer", "tests.broken_normalizer:normalize", "--certifications-dir",
      "reports/certifications"], "holds the suite's records of the reference normalizer"),
    (["producers", "--canal", "--database", "mariadb"], "--canal runs on MariaDB alone"),
    (["gate", "README.md", "--baseline", "README.md"], "README.md: line 1 is not JSON (Expecting value): expected a results.jsonl"),
    (["producers", "--flink-cdc", "--debezium", "3.3.2.Final"], "--flink-cdc runs on MariaDB alone"),
    (["peers", "--peer", "tests.peer_fixtures.no_formats:normalize"], "its module has no supported_formats()"),
    (["peers", "--peer", "tests.peer_fixtures.bad_declaration:normalize"], "expresses(): field 'payload' is not an event field"),
    (["peers", "--peer", "missing_module:normalize"], "--peer missing_module:normalize: module missing_module does not"),
    (["peers", "--format", "ces-avro"], "--format ces-avro: no chosen peer reads it (they read canal-json, cloudcanal-debezium"),
])
def test_misuse_is_one_line_and_exit_2(cli_here, args, message):
    code, _, err = cli_here(*args)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and message in lines[0], err


def test_misuse_from_a_real_process_is_one_line_and_exit_2():
    result = _cli("run", "--format", "nope")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr


UNLOADABLE = {
    "missing_module:normalize": "module missing_module does not import: ModuleNotFoundError",
    "syntax_error:normalize": "module syntax_error does not import: SyntaxError",
    "name_error:normalize": "module name_error does not import: NameError: name 'undefined_name' is not defined",
    "not_callable:normalize": "normalize is a str, not a function",
    "not_callable:no_such_function": "module not_callable has no no_such_function",
    "no_function_named": "give the normalizer as MODULE:FUNCTION",
}


@pytest.mark.parametrize("spec", UNLOADABLE)
def test_a_normalizer_that_cannot_be_loaded_is_one_line_of_misuse_naming_why(cli_here, tmp_path, monkeypatch, spec):
    """It was a traceback and exit 1 (SyntaxError, NameError), or accepted and then an error per case (not callable)."""
    (tmp_path / "syntax_error.py").write_text("def normalize(raw, format_id)\n    return raw\n")
    (tmp_path / "name_error.py").write_text("undefined_name.attribute\n")
    (tmp_path / "not_callable.py").write_text("normalize = 'a string'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    code, _, err = cli_here("run", "--case", "canal-json-delete", "--normalizer", spec)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and f"--normalizer {spec}" in lines[0], err
    assert UNLOADABLE[spec] in lines[0], err


def test_the_suites_own_golden_files_are_read_only_outside_its_checkout(cli_here, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = cli_here("run", "--case", "canal-json-delete", "--update-golden")
    assert code == 2 and "the suite's own golden files are read-only here" in err
    assert not list(tmp_path.iterdir())


def test_lint_and_formats_succeed(cli_here):
    assert cli_here("lint")[0] == 0
    code, out, _ = cli_here("formats")
    assert code == 0 and "debezium-json@2.7" in out


def test_lint_takes_the_users_cases_and_known_failures(cli_here, tmp_path, monkeypatch):
    """A user's repository lints its own cdc-cases/ and known failures, naming its own file."""
    import shutil

    from cdc_conformance.harness.cases import CASES_DIR

    (tmp_path / "cdc-cases" / "debezium-json").mkdir(parents=True)
    shutil.copy(CASES_DIR / "debezium-json" / "debezium-schemaless-decimals-read-alike.yaml", tmp_path / "cdc-cases" / "debezium-json")
    (tmp_path / "mine.yaml").write_text("known_failures:\n  - case: no-such-case\n    reason: a typo\n")
    monkeypatch.chdir(tmp_path)
    assert cli_here("lint", "--cases-dir", "cdc-cases")[:2] == (0, "1 cases, 0 problems\n")
    code, out, _ = cli_here("lint", "--cases-dir", "cdc-cases", "--known-failures", "mine.yaml")
    assert code == 1 and "mine.yaml: 'no-such-case' names no case [known-failure-orphan]" in out, out


def test_readme_format_table_is_the_registry():
    from pathlib import Path

    from cdc_conformance.harness.registry import Registry

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    table = readme.split("<!-- formats:begin -->\n", 1)[1].split("\n<!-- formats:end -->", 1)[0]
    assert table == Registry.load().markdown_table(), "regenerate with: cdc-conformance formats --markdown"


def test_readme_run_summary_is_the_cases_and_golden_files():
    from pathlib import Path

    from cdc_conformance.harness.cases import load_cases
    from cdc_conformance.harness.known_failures import load_known_failures
    from cdc_conformance.harness.reports import expected_summary

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = readme.split("<!-- summary:begin -->\n```\n", 1)[1].split("\n```\n<!-- summary:end -->", 1)[0]
    assert block == expected_summary(load_cases(), load_known_failures()), "regenerate with: cdc-conformance formats --summary"


def test_canonical_model_doc_lists_every_code_under_its_phase():
    import re
    from pathlib import Path

    from cdc_conformance.model import CODE_PHASE

    doc = (Path(__file__).resolve().parents[2] / "docs" / "canonical-model.md").read_text()
    listed = {(code, phase) for phase, codes in re.findall(r"^\| (DECODE|VALIDATE|ASSEMBLE|CONVERT) \| (.+?) \|", doc, re.M)
              for code in re.findall(r"`([A-Z_0-9]+)`", codes)}
    assert listed == {(code.value, phase.value) for code, phase in CODE_PHASE.items()}


def test_readme_lists_every_code_under_its_phase():
    import re
    from pathlib import Path

    from cdc_conformance.model import CODE_PHASE

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    paragraph = readme[readme.index("- **Quarantine**"):].split("\n- ", 1)[0]
    listed = {(code, phase) for phase, codes in re.findall(r"(DECODE|VALIDATE|CONVERT|ASSEMBLE)\s+([^;.]+)", paragraph)
              for code in re.findall(r"`([A-Z_0-9]+)`", codes)}
    assert listed == {(code.value, phase.value) for code, phase in CODE_PHASE.items()}


def test_the_replay_command_carries_what_the_run_was_given():
    from pathlib import Path

    from cdc_conformance.harness.runner import replay_options

    assert replay_options("cdc_conformance.normalizer.pipeline:normalize", None, None, None, "embedded", None, None) == ""
    options = replay_options("mypkg.job:normalize", Path("my cases"), Path("gold"), None, "external", "h:9092", None)
    assert options == " --normalizer mypkg.job:normalize --cases-dir 'my cases' --golden-dir gold --broker external --bootstrap-servers h:9092"
    assert replay_options("mypkg.job:normalize", remote="sc://spark:15002") == " --normalizer mypkg.job:normalize --remote sc://spark:15002"


def test_promote_checks_its_arguments_before_any_jvm_and_refuses_an_unredacted_capture(cli_here, tmp_path):
    from cdc_conformance.harness import reproduce

    capture = tmp_path / "bug.yaml"
    record = reproduce.record_item("t", 0, 5, b'{"id":1}', b'{"op":"c"}', [])
    reproduce.save(reproduce.capture_document("debezium-json", [record], {"source": "a test"}), capture)
    cases = ["--cases-dir", str(tmp_path / "cases"), "--golden-dir", str(tmp_path / "golden")]
    code, _, err = cli_here("promote", str(capture), "--id", "x-y", "--feature", "nosuchfeature", *cases)
    assert code == 2 and "--feature nosuchfeature: not a feature of debezium-json" in err
    code, _, err = cli_here("promote", str(capture), "--id", "x-y", "--feature", "insert", *cases)
    assert code == 2 and "was never redacted" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "cases").exists()


def test_a_jvm_part_that_cannot_be_had_is_its_tool_s_words_and_exit_1(monkeypatch, capsys):
    """Maven or javac failing (no JDK, no network to a registry) is no misuse and no crash: what the tool said, no
    traceback, exit 1."""
    from cdc_conformance.harness import jvm
    from cdc_conformance.harness.cli import main

    def refused(artifacts):
        raise jvm.ArtifactError(f"mvn failed for {artifacts.name} {artifacts.version}:\n[ERROR] Could not resolve")

    monkeypatch.setattr(jvm, "ensure", refused)
    with pytest.raises(SystemExit) as exit_:
        main(["jvm"])
    err = capsys.readouterr().err
    assert exit_.value.code == 1 and err.startswith("cdc-conformance: mvn failed for kafka") and "Traceback" not in err


KNOWN_FAILURES_MISTAKES = {
    "known_failures:\n  - case: a-case\n": "entry 1 (a-case): no reason (expected case and reason, texts, and bug at most)",
    "known_failures:\n  - case: a-case\n    reason: [not, a, text]\n": "entry 1 (a-case): reason is not a text",
    "known_failures:\n  - case: a-case\n    reason: why\n    resaon: typo\n": "entry 1 (a-case): unknown key resaon",
    "known_failures:\n  - just a string\n": "entry 1: expected a mapping of case, reason and bug, got 'just a string'",
    "known_failures: {case: a}\n": "known_failures: expected a list of entries, got dict",
    "- case: a-case\n  reason: why\n": "expected a mapping with one key, known_failures",
    "known_failures:\n  - case: a-case\n    reason: 'unclosed\n": "not YAML at line",
}


@pytest.mark.parametrize("text", KNOWN_FAILURES_MISTAKES, ids=range(len(KNOWN_FAILURES_MISTAKES)))
@pytest.mark.parametrize("command", [["lint"], ["run", "--case", "canal-json-delete"]], ids=["lint", "run"])
def test_a_known_failures_file_with_a_mistake_is_one_line_naming_it(cli_here, tmp_path, text, command):
    """Issue 58 (9): a missing reason was `KeyError: 'reason'` from lint, invalid YAML a 60-line ParserError; now one
    line naming the file, the entry and what was expected, exit 2, before any JVM starts."""
    (tmp_path / "mine.yaml").write_text(text)
    code, _, err = cli_here(*command, "--known-failures", tmp_path / "mine.yaml")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "mine.yaml" in lines[0] and KNOWN_FAILURES_MISTAKES[text] in lines[0], err


@pytest.mark.parametrize("args, message", [
    (["run", "--remote", "http://localhost:15002"], "--remote http://localhost:15002: a Spark Connect URL, sc://HOST:PORT"),
    (["bench", "--streaming", "--normalizer", "tests.peer_fixtures.batch_only:normalize"],
     "--streaming: tests.peer_fixtures.batch_only:normalize has no streaming entry"),
])
def test_journey_misuse_is_one_line_before_any_jvm(cli_here, args, message):
    """Issue 58 (7, 11, 13): refused as usage, in one line, before a broker or Spark starts."""
    code, _, err = cli_here(*args)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and message in lines[0], err


def test_remote_without_the_connect_client_is_one_line(monkeypatch):
    """`run --remote` where PySpark's Connect client is missing printed a 53-line traceback (issue 58, 13)."""
    import pyspark.sql.connect.utils as connect_utils

    from cdc_conformance.harness.spark import remote_problem

    def missing(_name):
        raise ImportError("grpcio >= 1.48.1 must be installed; however, it was not found.")

    monkeypatch.setattr(connect_utils, "check_dependencies", missing)
    problem = remote_problem("sc://localhost:15002")
    assert problem is not None and 'pip install "pyspark[connect]"' in problem and "grpcio" in problem
    monkeypatch.setattr(connect_utils, "check_dependencies", lambda _name: None)
    assert remote_problem("sc://localhost:15002") is None


def test_version_names_the_release_and_the_commit(cli_here):
    from cdc_conformance.harness import suite_files

    code, out, _ = cli_here("--version")
    assert code == 0 and out.startswith(f"cdc-conformance {suite_files.suite_version()} (commit ")


def test_merge_refuses_runs_on_two_spark_versions(cli_here, tmp_path):
    """The merged report names one Spark; runs on two were labelled with one of them (issue 58, 13)."""
    import json

    from cdc_conformance.harness.reports import run_facts

    for name, spark in (("a", "3.5.0"), ("b", "4.0.0")):
        (tmp_path / name).mkdir()
        facts = {**run_facts({"normalizer": "mypkg.job:normalize"}), "spark_version": spark}
        (tmp_path / name / "results.jsonl").write_text(json.dumps(facts) + "\n")
    code, _, err = cli_here("merge", tmp_path / "a", tmp_path / "b", "--reports", tmp_path / "merged")
    assert code == 2 and "different Spark versions (3.5.0, 4.0.0)" in err, err
