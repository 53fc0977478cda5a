"""Names of torch's records and keys that a report's writers and share's copy need by name.

Stdlib only. ``trace/records.py`` parses records; these are the few names outside it: what a
shared copy drops (checksums, source lines), which payloads are data, and the event each
graph kind's text comes in (``store/factory.py`` writes reports as capture would).
"""

from __future__ import annotations

# Keys of a record's metadata derived from the original text (the payload's md5): a shared
# copy drops them, since they could be checked against guesses.
CHECKSUM_KEYS = frozenset({"has_payload"})
# The key of a stack entry that holds the source line (a copy without source drops it).
SOURCE_LINE_KEY = "loc"

# Records whose payloads are data, never the user's source (`share --no-source` keeps them).
SOURCE_FREE_EVENTS = frozenset(
    {"inspectc_kernel_times", "artifact:torch_version", "artifact:recompile_reasons"}
)

# The event torch names each graph kind's text with (one of them where torch has several:
# trace/builder.py maps every name it reads to its kind).
GRAPH_EVENTS = {
    "dynamo": "dynamo_output_graph",
    "post_grad": "inductor_post_grad_graph",
    "output_code": "inductor_output_code",
    "guards": "dynamo_cpp_guards_str",
}
