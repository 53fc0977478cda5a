"""torch's shapes as a report stores them, decoded the same way by the builder and the readers.

A report keeps some of torch's records raw (DDP's split records, resume functions' bytecode
listings, ``chromium_event`` spans) and some fields as torch wrote them (a break's text, a
resume function's name, a kernel's ``meta``). The pure functions that read them live here, in
the model layer, so ``trace/`` (which builds reports) and the readers (analysis, render, cli,
the TUI, which never import ``trace/``: pyproject.toml's contract) share one decoder each.
Stdlib only; no function here touches a file.
"""
