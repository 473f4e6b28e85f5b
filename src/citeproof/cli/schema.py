"""``citeproof schema NAME``: the JSON schema of a report, from the models themselves.

Why generated: the schema a pipeline validates against must be the one the code writes, so
it is produced from the pydantic models (serialisation mode, field names as printed) rather
than kept by hand beside them.

Module level imports click only: ``citeproof --help`` imports this module.
"""

from __future__ import annotations

from typing import Any

import click

from citeproof.cli.options import CONTEXT_SETTINGS, epilog

__all__ = ["SCHEMAS", "report_schema", "schema"]

SCHEMAS = ("audit", "check", "manuscript", "references")


def report_schema(name: str) -> dict[str, Any]:
    """The JSON schema of ``citeproof.audit/1`` (``audit``), ``citeproof.check/1``,
    ``citeproof.manuscript/1`` or ``citeproof.references/1``."""
    if name == "audit":
        from citeproof.models.audit import AuditReport

        model: Any = AuditReport
        schema_id = "citeproof.audit/1"
    elif name == "check":
        from citeproof.models import CheckResult

        model = CheckResult
        schema_id = "citeproof.check/1"
    elif name == "manuscript":
        from citeproof.models.manuscript import MANUSCRIPT_SCHEMA, ManuscriptReport

        model = ManuscriptReport
        schema_id = MANUSCRIPT_SCHEMA
    elif name == "references":
        from citeproof.models.references import REFERENCES_SCHEMA, ReferencesReport

        model = ReferencesReport
        schema_id = REFERENCES_SCHEMA
    else:
        raise ValueError(f"no schema named {name!r}; choose from {', '.join(SCHEMAS)}")
    data: dict[str, Any] = model.model_json_schema(mode="serialization")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": schema_id, **data}


@click.command(
    context_settings=CONTEXT_SETTINGS,
    short_help="Print the JSON schema of a report: audit, check, manuscript or references.",
    epilog=epilog(
        "citeproof schema check > check.schema.json",
        "citeproof schema audit",
        "citeproof schema manuscript",
    ),
)
@click.argument("name", type=click.Choice(SCHEMAS))
def schema(name: str) -> None:
    """Print the JSON schema of NAME: `audit` (citeproof.audit/1), `check`
    (citeproof.check/1), `manuscript` (citeproof.manuscript/1) or `references`
    (citeproof.references/1)."""
    from citeproof.cli import _common

    _common.write_json(report_schema(name))
