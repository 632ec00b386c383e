"""Alibaba Cloud DTS's own subscription SDK as a normalizer under test: each dts-avro record as the SDK's users'
consumers read it (aliyun-dts-subscribe-sdk-java, `com.aliyun.dts:dts-new-subscribe-sdk` on Maven Central): its
`AvroDeserializer` reads the value into its `Record`, and the `DefaultUserRecord` its record listener gets says the
operation and the before and after images, each value as the SDK's `toString()` writes it (java/dts: DtsChangelog).
An exception of the SDK's stops its consumer: a refusal (docs/peers.md).

The DTS documentation sends its Kafka consumers to this SDK and to the demo built on the same classes; no vendor
material shows a Spark `from_avro` reading, so the SDK is how DTS users read the format.
"""
from __future__ import annotations

from pathlib import Path

from pyspark.sql import DataFrame

from cdc_conformance.harness import jvm
from cdc_conformance.peers import changes, isolated

# the newest release on Maven Central (2.0.0 and 1.4.0 are served)
DTS_SDK_VERSION = "2.0.0"
UDF_NAME = "cdc_conformance_dts_changelog"
UDF_CLASS = "io.cdcconformance.peers.DtsPeerUdf"


def artifacts() -> jvm.ArtifactSet:
    return jvm.ArtifactSet("dts-sdk", jvm.JVM_DIR / "dts-sdk" / "pom.xml", DTS_SDK_VERSION, {"dts.sdk.version": DTS_SDK_VERSION})


def spark_jars(cache_dir: Path) -> list[str]:
    """The peer's door to the classpath: DtsPeerUdf and DtsChangelog compiled against PySpark's jars and the SDK's,
    whose paths are inside, loaded by a class loader of their own (the SDK's Avro 1.8 beside Spark's)."""
    return [isolated.peer_jar(f"cdc-conformance-dts-peer-{DTS_SDK_VERSION}", "dts", jvm.ensure(artifacts()), cache_dir)]


def normalize(raw: DataFrame, format_id: str) -> changes.Output:
    isolated.register(raw.sparkSession, UDF_NAME, UDF_CLASS)
    return isolated.output(raw, format_id, f"{UDF_NAME}(value)")


def supported_formats() -> list[str]:
    return ["dts-avro"]


def expresses() -> dict:
    # row changes, their operation and images, values as the SDK's text; a stopped consumer is a refusal. The SDK reads
    # the record's value (DTS writes no key it reads); a DTS topic holds one subscription's records
    return {"kinds": ["ROW"], "fields": ["kind", "op", "before", "after"], "values": "text", "quarantine": "refusal",
            "reads": ["value"], "topics": "tables"}


def label() -> str:
    return f"DTS subscribe SDK {DTS_SDK_VERSION}"
