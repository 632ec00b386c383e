"""Reproducing a production parsing bug: capture the records, shrink them, redact them, promote them to a case
(one module per step; this package names what the command line and the pytest plugin use).

A **capture** is a YAML document with the exact records (key and value bytes, headers, partition, offset)
and where they came from. Whether it **fails**, and how, is decided by running it through the normalizer
under test and the reference normalizer on the real broker and Spark: the failure's *signature* is the set
of event fields that differ (list positions dropped) and quarantine codes that differ, so "fails the same
way" survives removing records. `minimize` shrinks like Hypothesis does: first the records the difference
touches, then delta debugging over records, then members inside JSON values; every round's candidates run
side by side on topics of their own in one Spark job. `redact` replaces values with stand-ins of the same
shape and refuses a result that no longer fails the same way. `promote` turns a capture into a case file.
"""
from cdc_conformance.harness.reproduce.captures import CAPTURE_VERSION, ReproduceError, capture_document, kafka_record, load, record_item, save
from cdc_conformance.harness.reproduce.capturing import capture_from_cluster, capture_from_kcat, client_properties, epoch_ms, masked, parse_offsets
from cdc_conformance.harness.reproduce.minimizing import minimize
from cdc_conformance.harness.reproduce.promoting import KnownFailure, case_document, expectation_from, promote
from cdc_conformance.harness.reproduce.redacting import redact, redacted, stand_in
from cdc_conformance.harness.reproduce.signature import Outcome, Reproducer

__all__ = ["CAPTURE_VERSION", "KnownFailure", "Outcome", "ReproduceError", "Reproducer", "capture_document", "capture_from_cluster",
           "capture_from_kcat", "case_document", "client_properties", "epoch_ms", "expectation_from", "kafka_record", "load",
           "masked", "minimize", "parse_offsets", "promote", "record_item", "redact", "redacted", "save", "stand_in"]
