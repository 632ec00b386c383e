# Two entry points do all set-up on a fresh machine, idempotently:
#   make run   - bootstrap, then run the conformance suite on the embedded defaults and print the summary
#   make test  - bootstrap, then the tests (unit tier, then integration against the real broker and Spark;
#                the Testcontainers tests get a Docker engine from scripts/docker-engine.sh where none runs)
#   make test-long - the minute-long runs: a broker and a driver killed mid-stream, the soak's 500-record slice per
#                format, the installed plugin, capture and certify stories (run by .ci/run after make test)
#   make test-user - the three jobs (certify, reproduce, gate) from a throwaway user repository, the suite installed
#                from its wheel (run by .ci/run after make test)
#   make test-java - the JVM readers' JUnit tests and fuzz targets over their seeds (make test runs it)
#   make fuzz  - coverage-guided fuzzing of every reader, 10 minutes each (Jazzer)
#   make soak  - 10,000 mutated records per format through Kafka and Spark (make test-long runs a 500 slice)
#   make bench - throughput beside a plain parse, every format, batch then streaming (docs/performance.md)
#   make profile - where a batch record's time goes, every format: async-profiler's flame graphs and a summary of a pass
#                  of each side, in reports/profile (docs/performance.md)
#   make ceiling - what each record-reading format would reach if reading cost nothing: the normalizer's plan with its
#                  readers' outputs replayed, as Rows and as internal rows (scripts/reader_ceiling.py, docs/performance.md)
#   make readers - each reader alone, one thread, no Spark: ns per record over its format's benchmark records (a
#                  grouped format's group reader: per group, as a batch decode hands them to it)
#                  (scripts/reader_timing.py; --against OTHER.jar times another build's readers in turns)
#   make operator-floor - the stateful formats' streaming path with Spark's stateful operator running a function that
#                  does nothing, beside the floor and the shipped path (scripts/operator_floor.py, docs/performance.md)
#   make peers - the reference beside Flink's debezium-json and canal-json (formats and SQL jobs), Paimon's canal,
#                Debezium and DataWorks (aliyun-json) parsers, Kafka Connect's JsonConverter, DTS's subscription SDK and
#                the naive Spark parses, over every case and 200 drawn examples per format (docs/peers.md; make test
#                runs the naive parse over a few cases, make test-long the other peers over the cases docs/peers.md pins)
#   make producers - drawn histories through PostgreSQL and Debezium 1.9.7, 2.7.3, 3.3.2, and through MariaDB and
#                    Debezium's MariaDB connector 3.3.0 and 3.5.0, then three connector settings in turn on both,
#                    then through MariaDB and canal's own server 1.1.4, then through Flink CDC 3.1.1's MySQL source
#                    (docs/producers.md; make test runs one
#                    crafted history per database, make test-long one through canal)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
JVM_READY := .cache/jvm/.ready

.PHONY: bootstrap system-packages browser run dist typecheck test test-unit test-integration test-user test-java test-long fuzz lint bench profile ceiling readers operator-floor soak peers producers docker-engine docker-engine-stop clean

bootstrap: $(INSTALLED) $(JVM_READY)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# uv (Astral's installer, from PyPI) downloads and unpacks in parallel: 23 s instead of pip's 51 s for the
# dependencies on a fresh machine (PySpark alone is a 300 MB wheel). Where it cannot, pip does the same install.
$(BIN)/uv: | $(BIN)/python
	$(BIN)/python -m pip install -q uv

# Reinstalled only when the dependency list changes. uv offline first: where its cache already holds everything (a
# second checkout on this machine) nothing is fetched or built. Online, a registry that serves PySpark's sdist without
# lasting cache headers makes uv build it again into a new 1.3 GB cache entry on every install (forty of them filled
# this machine's disk and failed a CI run); offline, uv reuses the build it has.
SUITE_REQUIREMENTS = -c constraints.txt -e ".[test]"
$(INSTALLED): pyproject.toml constraints.txt | $(BIN)/uv
	$(BIN)/uv pip install -q --offline --python $(BIN)/python $(SUITE_REQUIREMENTS) 2>/dev/null \
	  || $(BIN)/uv pip install -q --python $(BIN)/python $(SUITE_REQUIREMENTS) \
	  || $(BIN)/python -m pip install -q $(SUITE_REQUIREMENTS)
	touch $@

# Maven resolves the Kafka broker and Spark's connectors (at the installed PySpark's version) once (Kafka Connect with
# Debezium's connectors, for the real-producer tier, on first use), and compiles the normalizer's JVM classes (normalizer/java).
$(JVM_READY): $(INSTALLED) $(wildcard harness/maven/*/pom.xml) harness/maven/settings.xml normalizer/java/pom.xml cdc_conformance/model-grammar.json $(wildcard normalizer/java/src/main/java/io/cdcconformance/*/*.java normalizer/java/src/main/resources/io/cdcconformance/*/*)
	$(BIN)/cdc-conformance jvm
	touch $@

# Debian's packages for the test tier (Chromium for the HTML matrix's real-browser check; docker.io and debootstrap
# for the Testcontainers backend), installed in the background while bootstrap runs (root and apt, as on CI);
# `browser` waits for them.
system-packages:
	@scripts/system-packages.sh start

browser: system-packages
	@scripts/system-packages.sh wait

run: bootstrap
	$(BIN)/cdc-conformance run

lint: bootstrap
	$(BIN)/ruff check .
	scripts/typecheck.sh
	$(BIN)/cdc-conformance lint

test: system-packages bootstrap browser
	$(BIN)/ruff check .
	scripts/typecheck.sh
	$(MAKE) --no-print-directory test-java
	scripts/docker-engine.sh run -- $(BIN)/python -m pytest -m "not long"

# The minute-long runs: the soak's 500-record slice per format, a broker (embedded and in a container) and a driver
# killed mid-stream, the plugin from the built wheel in a fresh virtualenv, the capture stories (a cluster with
# SASL/SCRAM over TLS; minimize, redact, promote) and the certify story. Outside make test's 12 minutes; .ci/run runs
# them after it.
test-long: system-packages bootstrap browser
	scripts/docker-engine.sh run -- $(BIN)/python -m pytest -m long

# The JVM readers as a Maven module (normalizer/java): JUnit tests without Spark, and each fuzz target over its seeds
# (the conformance cases' and the generators' hostile records, written by the module's build itself: `mvn test` runs
# alone in a bootstrapped checkout; Jazzer's regression mode), in seconds
JAVA_MODULE := normalizer/java
MVN := mvn -q -B -s harness/maven/settings.xml -f $(JAVA_MODULE)/pom.xml
test-java: bootstrap
	$(MVN) test

# Coverage-guided fuzzing of each reader (Jazzer) for 10 minutes each (ReadersFuzzTest's maxDuration); pick targets
# with FUZZ_TARGETS="canalJson dtsAvro" (scripts/fuzz_seeds.py --targets lists them). A finding fails the target and leaves its input in the target's inputs directory
# (ReadersFuzzTestInputs/<target>): make it a case. Logs: .cache/fuzz/<target>.log
FUZZ_TARGETS ?= $(shell $(BIN)/python scripts/fuzz_seeds.py --targets 2>/dev/null)
fuzz: bootstrap
	@mkdir -p .cache/fuzz
	@failed=""; for target in $(FUZZ_TARGETS); do \
	  JAZZER_FUZZ=1 mvn -B -s harness/maven/settings.xml -f $(JAVA_MODULE)/pom.xml test -Dquiet.tests=false -Dtest="ReadersFuzzTest#$$target" \
	    > .cache/fuzz/$$target.log 2>&1 || failed="$$failed $$target"; \
	  echo "$$target: $$(grep -h '^fuzz:' .cache/fuzz/$$target.log) $$(grep -ho 'exec/s: [0-9]*' .cache/fuzz/$$target.log | tail -1)"; \
	done; [ -z "$$failed" ] || { echo "findings in:$$failed (.cache/fuzz/<target>.log)"; exit 1; }

soak: bootstrap
	$(BIN)/cdc-conformance soak --records 10000

# Throughput beside a plain parse of the same records, every format, batch then streaming (docs/performance.md: the
# goals live here, never in timed tests); BENCH_MESSAGES and BENCH_REPEAT to change the size
BENCH_MESSAGES ?= 100000
BENCH_REPEAT ?= 3
bench: bootstrap
	$(BIN)/cdc-conformance bench --all --messages $(BENCH_MESSAGES) --repeat $(BENCH_REPEAT)
	$(BIN)/cdc-conformance bench --streaming --all --messages $(BENCH_MESSAGES) --repeat 2

profile: bootstrap
	$(BIN)/cdc-conformance bench --all --messages $(BENCH_MESSAGES) --repeat 1 --profile reports/profile

ceiling: bootstrap
	$(BIN)/python scripts/reader_ceiling.py --all --messages $(BENCH_MESSAGES) --repeat 4

readers: bootstrap
	$(BIN)/python scripts/reader_timing.py

operator-floor: bootstrap
	$(BIN)/python scripts/operator_floor.py --messages $(BENCH_MESSAGES) --repeat 3

# The ecosystem's consumers beside the reference (docs/peers.md): every case of the formats the peers read and 200 drawn
# examples per format through the shipped peers (`cdc-conformance peers --help`), Flink's at 1.20.4, then at 2.3.0;
# reports in reports/peers/ and reports/peers-flink-2/
peers: bootstrap
	$(BIN)/cdc-conformance peers --examples 200 --seed 1 --reports reports/peers
	CDC_FLINK_VERSION=2.3.0 $(BIN)/cdc-conformance peers --examples 200 --seed 1 --reports reports/peers-flink-2

producers: bootstrap
	$(BIN)/cdc-conformance producers --database postgresql --histories 9 --debezium 1.9.7.Final --debezium 2.7.3.Final --debezium 3.3.2.Final
	$(BIN)/cdc-conformance producers --database mariadb --histories 8 --debezium 3.3.0.Final --debezium 3.5.0.Final
	$(BIN)/cdc-conformance producers --histories 4 --settings rotation
	$(BIN)/cdc-conformance producers --canal --histories 8
	$(BIN)/cdc-conformance producers --flink-cdc --histories 8

# A Docker engine for the Testcontainers backend (started only where none answers; root with apt)
docker-engine:
	@scripts/docker-engine.sh start
	@scripts/docker-engine.sh base-image

docker-engine-stop:
	@scripts/docker-engine.sh stop

# The three jobs from a user's own repository, with the suite installed from its wheel (tests/user/test_workflows.py;
# .ci/run runs it after `make test`, outside the gate's 12 minutes)
# The release's build and check (.github/workflows/release.yml): sdist and wheel into dist/, their metadata as a
# package index checks it. The in-tree egg-info goes first: setuptools adds the files its SOURCES.txt lists to the
# sdist, and one written before a layout change lists paths the package no longer has.
dist: bootstrap
	rm -rf dist *.egg-info && $(BIN)/uv build -q -o dist .
	$(BIN)/twine check --strict dist/cdc_conformance-*

# mypy over the package as it is imported (scripts/typecheck.sh; make test runs it)
typecheck: bootstrap
	scripts/typecheck.sh

test-user: bootstrap
	$(BIN)/python -m pytest tests/user -o addopts="-ra --strict-markers -p no:cacheprovider --durations=5"

test-unit: bootstrap
	$(BIN)/python -m pytest -m "not integration"

test-integration: system-packages bootstrap browser
	scripts/docker-engine.sh run -- $(BIN)/python -m pytest -m integration

clean:
	rm -rf reports/latest .pytest_cache .hypothesis
