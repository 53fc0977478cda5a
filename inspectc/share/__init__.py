"""share: what ``inspectc share`` ships and how it is checked.

The redaction rules (``rules``), the redactor (``redact``) and what a report records as
private (``found``), the redacted copy of a report (``transform``, written through
``inspectc.store.rewrite``), the independent detector (``detect``: detect-secrets), the
``--check`` verdict (``check``) and the driver that makes a bundle (``bundle``). The
Markdown and HTML it bundles are rendered by ``inspectc.render.share``.
"""
