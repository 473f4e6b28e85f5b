"""What an agent meets first: what tools/list costs it, a summary by default and the whole
object on request, arguments refused in one line, the handle and checkpoint tools, and a
server that starts without importing what it does not need.

Every call goes through the SDK's in-process client, which validates each structured result
against the tool's (compact) output schema; ``structured`` checks it again with jsonschema.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import jsonschema
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import Tool
from mcp_helpers import EXAMPLE, REPO, call, error_text, full, run, structured

from citeproof.mcp.server import build_server
from citeproof.mcp.tools import ToolSettings
from citeproof.models import CheckResult
from citeproof.models.audit import AuditReport
from citeproof.models.references import ReferencesReport

if TYPE_CHECKING:
    from conftest import CliRun

EXACT = "Mean sleep onset latency fell by 14 minutes (95% CI 9 to 19) in the walking group"
NUMBERS_CHANGED = EXACT.replace("14 minutes", "41 minutes")
MAX_TOOLS_LIST_BYTES = 30_000


def _tools(server: MCPServer) -> dict[str, Tool]:
    async def go() -> list[Tool]:
        async with Client(server) as client:
            return (await client.list_tools()).tools

    return {tool.name: tool for tool in run(go)}


def _compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    """Every sub-schema of ``node`` (not the ``properties`` maps themselves)."""
    if isinstance(node, list):
        for item in node:
            yield from _walk(item)
    elif isinstance(node, dict):
        yield node
        for key, value in node.items():
            if key in ("properties", "$defs") and isinstance(value, dict):
                for sub in value.values():
                    yield from _walk(sub)
            else:
                yield from _walk(value)


# ------------------------------------------------------------------------------ tools/list


def test_tools_list_is_at_most_30_kb(server: MCPServer) -> None:
    """It was about 108 KB (81% of it output schemas): an agent paid ~27k tokens up front."""

    async def go() -> str:
        async with Client(server) as client:
            listed = await client.list_tools()
        return _compact(listed.model_dump(mode="json", by_alias=True, exclude_none=True))

    text = run(go)
    assert len(text.encode()) <= MAX_TOOLS_LIST_BYTES, len(text.encode())


def test_output_schemas_are_compact_valid_json_schemas(server: MCPServer) -> None:
    for name, tool in _tools(server).items():
        schema = tool.output_schema
        assert schema is not None and schema["type"] == "object", name
        jsonschema.Draft202012Validator.check_schema(schema)
        for node in _walk(schema):  # what an agent does not need is left to `citeproof schema`
            assert node.get("additionalProperties") is not False, name
            assert not {"title", "description", "default", "required"} & set(node), name
        assert len(_compact(schema)) < 3_500, name


def test_the_tools_take_a_detail_argument_where_results_are_heavy(server: MCPServer) -> None:
    tools = _tools(server)
    heavy = {"check_quote", "check_quotes", "audit_answer", "verify_references"}
    for name, tool in tools.items():
        detail = tool.input_schema["properties"].get("detail")
        if name in heavy:
            assert detail is not None and detail["enum"] == ["summary", "full"], name
            assert detail["default"] == "summary"
        else:
            assert detail is None, name


# ------------------------------------------------------------------------------ detail


def test_check_quote_on_an_identifier_is_a_small_summary_by_default(
    server: MCPServer, pinned: str
) -> None:
    """A typical check of an identifier was 6.5 KB, 5.2 KB of it the retraction report."""
    arguments = {"quote": EXACT, "source": "PMC9990001"}
    summary_result = call(server, "check_quote", arguments)
    summary = summary_result.structured_content
    assert summary is not None and not summary_result.is_error
    whole = full(server, "check_quote", arguments)

    assert summary["verdict"] == whole["verdict"] == "EXACT"
    assert summary["source"] == {
        "identifier": pinned,
        "version": "1",
        "coverage": "full_text",
        "title": whole["source"]["title"],
    }
    match = summary["matches"][0]
    assert set(match) == {"start", "end", "text", "location"}
    assert match["location"] == {"section": ["Abstract", "Results"], "region": "abstract"}
    retraction = summary["retraction"]
    assert retraction["status"] == "UNVERIFIABLE" and "sources" not in retraction
    assert len(retraction["reason"]) <= 300 and len(whole["retraction"]["sources"]) == 5
    assert len(_compact(summary)) < 1_600 < 5_000 < len(_compact(whole))
    # the whole object is the library's, unchanged
    assert CheckResult.model_validate(whole).model_dump(mode="json", by_alias=True) == whole

    (block,) = summary_result.content
    text = getattr(block, "text", "")
    assert text == _compact(summary) and "\n" not in text  # compact JSON, no indentation


def test_a_near_summary_keeps_the_source_wording_the_differing_words_and_the_flags(
    server: MCPServer,
) -> None:
    summary = structured(server, "check_quote", {"quote": NUMBERS_CHANGED, "source": str(EXAMPLE)})
    near = summary["near"]
    assert summary["verdict"] == "NEAR" and near["flags"] == ["numbers_differ"]
    assert "14 minutes" in near["text"]
    assert near["diff"] == [{"op": "replace", "quote": "41", "source": "14"}]
    assert near["location"]["region"] == "abstract"


def test_a_retracted_work_keeps_its_notices_in_the_summary() -> None:
    from citeproof.mcp.schemas import load
    from citeproof.mcp.summaries import summarise
    from citeproof.mcp.tools import TOOLS
    from citeproof.models.retraction import Notice, RetractionReport, SourceReport

    notice = Notice(kind="retraction", doi="10.5555/notice.1", date="2024-05", source="publisher")
    report = RetractionReport(
        identifier="doi:10.5555/invented.1",
        resolved={"doi": "10.5555/invented.1"},
        status="RETRACTED",
        reason="retracted according to crossref.",
        sources=[
            SourceReport(source="crossref", state="answered", retracted=True, notices=[notice]),
            SourceReport(source="pubmed", state="answered", retracted=False),
            SourceReport(source="pmc", state="failed", reason="unreachable"),
        ],
    )
    check = CheckResult(
        verdict="EXACT",
        quote=EXACT,
        source={"input": "10.5555/invented.1", "kind": "jats", "coverage": "full_text"},
        retraction=report,
    ).model_dump(mode="json", by_alias=True)
    summary = summarise(TOOLS["check_quote"].shape, json.loads(json.dumps(check)))
    assert summary["retraction"] == {
        "status": "RETRACTED",
        "reason": "retracted according to crossref.",
        "sources": [
            {
                "source": "crossref",
                "notices": [{"kind": "retraction", "doi": "10.5555/notice.1", "date": "2024-05"}],
            }
        ],
    }
    schema = load()["check_quote"]["output"]
    jsonschema.validate(summary, schema)
    jsonschema.validate(check, schema)  # the same schema describes the whole object too


def test_check_quotes_summaries_and_full_results(server: MCPServer) -> None:
    items = [
        {"quote": EXACT, "source": str(EXAMPLE)},
        {"quote": "", "source": str(EXAMPLE)},
        {"quote": NUMBERS_CHANGED, "source": str(EXAMPLE)},
    ]
    summary = structured(server, "check_quotes", {"items": items})
    whole = full(server, "check_quotes", {"items": items})
    assert [i.get("result", {}).get("verdict") for i in summary["items"]] == ["EXACT", None, "NEAR"]
    assert summary["items"][1]["error"] == whole["items"][1]["error"]
    assert summary["by_verdict"] == whole["by_verdict"] == {"EXACT": 1, "NEAR": 1}
    assert "normalized_start" in _compact(whole) and "normalized_start" not in _compact(summary)


@pytest.fixture
def refs_server() -> MCPServer:
    from refs_world import RECORDINGS

    return build_server(ToolSettings(replay=str(RECORDINGS), log=False))


def test_verify_references_summary_and_full(refs_server: MCPServer) -> None:
    from refs_world import REFERENCES

    references = list(REFERENCES.values())
    summary = structured(refs_server, "verify_references", {"references": references})
    whole = full(refs_server, "verify_references", {"references": references})
    report = ReferencesReport.model_validate(whole)
    verdicts = [r["verdict"] for r in summary["references"]]
    assert verdicts == [r.verdict for r in report.references]
    assert {"verified", "mismatch", "not_found", "unavailable"} <= set(verdicts)
    assert summary["counts"] == whole["counts"]
    for entry in summary["references"]:
        assert not {"asked", "comparisons"} & set(entry)
    assert len(_compact(summary)) * 3 < len(_compact(whole))


def test_audit_summary_keeps_what_to_fix(server: MCPServer, pinned: str) -> None:
    answer = (
        "# Findings\n\n"
        f'Walking helped: "{EXACT}" (PMC9990001).\n'
        f'It says "{NUMBERS_CHANGED}" (PMC9990001).\n'
        "Nobody cited this claim about sleep at all.\n"
    )
    summary = structured(server, "audit_answer", {"answer": answer})
    whole = AuditReport.model_validate(full(server, "audit_answer", {"answer": answer}))
    assert summary["verdict"] == whole.verdict == "fail"
    assert [s["status"] for s in summary["sentences"]] == ["cited_ok", "cited_problem", "uncited"]
    misquote = summary["sentences"][1]["citations"][0]
    assert misquote["verdict"] == "misquote" and "numbers_differ" in misquote["flags"]
    assert "14 minutes" in misquote["check"]["near"]["text"]
    assert "signature" not in summary and whole.signature is not None
    assert summary["metrics"]["citations"] == whole.metrics.citations == 2


# ------------------------------------------------------------------------------ arguments


def test_input_schemas_carry_their_limits_and_choices(server: MCPServer) -> None:
    tools = _tools(server)

    def prop(tool: str, name: str) -> dict[str, Any]:
        value: dict[str, Any] = tools[tool].input_schema["properties"][name]
        return value

    assert prop("read_source", "limit")["maximum"] == 200_000
    assert prop("read_source", "limit")["minimum"] == 1
    assert prop("read_source", "start")["minimum"] == 0
    assert prop("find_passages", "limit")["maximum"] == 200
    assert prop("citing_papers", "limit")["maximum"] == 200
    assert prop("search_literature", "limit")["minimum"] == 1
    for tool, name in (
        ("check_quotes", "items"),
        ("verify_references", "references"),
        ("resolve_handles", "handles"),
    ):
        assert prop(tool, name)["maxItems"] == 100 and prop(tool, name)["minItems"] == 1
    assert prop("record_support", "seq")["minimum"] == 1
    assert prop("record_support", "support")["enum"] == ["supports", "contradicts", "absent"]
    fail_on = prop("audit_answer", "fail_on")["anyOf"]
    enum = fail_on[0]["items"]["enum"]
    assert {"misquote", "forged", "retracted", "uncited"} <= set(enum) and "ok" not in enum
    assert fail_on[1] == {"type": "null"}
    for name, tool in tools.items():
        assert tool.input_schema["additionalProperties"] is False, name
        for node in _walk(tool.input_schema):  # nullable as anyOf, never type: [..., "null"]
            assert not isinstance(node.get("type"), list), name
            assert "title" not in node or not isinstance(node["title"], str), name
    item = tools["check_quotes"].input_schema["$defs"]["QuoteItem"]
    assert item["properties"]["claim"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert item["additionalProperties"] is False


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        (
            "check_quote",
            {"quote": EXACT, "source": "x", "find_sources": True},
            "find_sources is not an argument of check_quote (its arguments: quote, source, claim, "
            "find_source, detail).",
        ),
        (
            "check_quotes",
            {"items": [{"quote": EXACT, "source": "x", "page": 3}]},
            "items[0].page is not a field here; remove it.",
        ),
        ("check_quote", {"quote": EXACT}, "source is required."),
        ("check_quote", {"quote": 5, "source": "x"}, "quote must be a string, not 5."),
        (
            "check_quote",
            {"quote": EXACT, "source": "x", "detail": "all"},
            "detail must be 'summary' or 'full', not \"all\".",
        ),
        (
            "read_source",
            {"source": "x", "limit": 500_000},
            "limit must be at most 200000, not 500000.",
        ),
        ("find_passages", {"source": "x", "limit": 201}, "limit must be at most 200, not 201."),
        (
            "citing_papers",
            {"identifier": "W1", "limit": "many"},
            'limit must be a whole number, not "many".',
        ),
        (
            "record_support",
            {"seq": 0, "support": "supports", "by": "me"},
            "seq must be at least 1, not 0.",
        ),
        ("check_quotes", {"items": []}, "items is empty; give at least 1."),
        (
            "verify_references",
            {"references": [5]},
            "references[0] must be a string or an object, not 5.",
        ),
        (
            "verify_references",
            {"references": [{"title": 5}]},
            "references[0].title must be a string, not 5.",
        ),
        (
            "verify_references",
            {"references": ["Smith J. A title. 2019.", {"DOI": 10.5}]},
            "references[1].DOI must be a string, not 10.5.",
        ),
        (
            "verify_references",
            {"references": [{"title": "T", "author": "Smith, Ann"}]},
            "references[0].author must be a list of names, each a string or an object such as "
            '{"family": "Smith", "given": "Ann"}, not "Smith, Ann".',
        ),
        (
            "verify_references",
            {"references": [{"title": "T", "author": [{"family": 3}]}]},
            "references[0].author[0].family must be a string, not 3.",
        ),
        (
            "verify_references",
            {"references": [{"title": "T", "issued": {"date-parts": "2019"}}]},
            "references[0].issued.date-parts must be a list of dates, each a list of numbers such "
            'as [2019, 5], not "2019".',
        ),
        (
            "verify_references",
            {"references": [{"title": "T", "container-title": 7, "PMID": True}]},
            "references[0].container-title must be a string or a list of strings, not 7; "
            "references[0].PMID must be a string or a whole number, not true.",
        ),
        ("read_source", {"source": "x", "limit": 1.5}, "limit must be a whole number, not 1.5."),
        (
            "verify_log",
            {"checkpoint": None, "since": 3, "until": 4},
            "since, until are not arguments of verify_log (its arguments: checkpoint).",
        ),
        (
            "resolve_handles",
            {"handles": ["h"] * 101},
            "handles has 101 items, more than 100 per call; split them into calls of at most 100.",
        ),
    ],
)
def test_argument_errors_are_one_line_saying_what_to_change(
    server: MCPServer, tool: str, arguments: dict[str, Any], expected: str
) -> None:
    message = error_text(server, tool, arguments)
    assert message == f"Error executing tool {tool}: {expected}"


def test_csl_json_shapes_the_reader_takes_are_not_refused(server: MCPServer) -> None:
    """A reference's fields are checked for the types CSL-JSON gives them, not more: a
    number for PMID, a list for container-title, dates as date-parts, raw or a year, null
    for a field left empty.  (With no recordings the lookups fail: unavailable.)"""
    reference = {
        "title": "An invented title",
        "PMID": 30000001,
        "doi": None,
        "id": 7,
        "author": ["Smith, Ann", {"family": "Doe", "given": "B", "non-dropping-particle": "van"}],
        "issued": {"date-parts": [[2019, "5"]]},
        "container-title": ["Invented Journal"],
        "volume": 3,
        "page": "1-9",  # fields citeproof does not read pass as they are
    }
    for issued in ({"raw": "2019"}, 2019, "Spring 2019"):
        data = structured(
            server, "verify_references", {"references": [{**reference, "issued": issued}]}
        )
        assert [r["verdict"] for r in data["references"]] == ["unavailable"]


def test_audit_fail_on_names_are_checked_by_the_schema(server: MCPServer) -> None:
    message = error_text(server, "audit_answer", {"answer": "x", "fail_on": ["sometimes"]})
    assert message.startswith("Error executing tool audit_answer: fail_on[0] must be 'case_only'")
    assert "\n" not in message and "pydantic" not in message


def test_a_list_sent_as_json_text_is_still_read(server: MCPServer) -> None:
    """Some clients send an array argument as a JSON string; the SDK parsed it, so do we."""
    items = json.dumps([{"quote": EXACT, "source": str(EXAMPLE)}])
    data = structured(server, "check_quotes", {"items": items})
    assert data["by_verdict"] == {"EXACT": 1}


# ------------------------------------------------------------------------------ statuses


def test_find_passages_on_an_unreadable_source_is_a_status_as_read_source_says() -> None:
    server = build_server(offline=True)
    page = structured(server, "read_source", {"source": "PMC9990004"})
    listed = structured(server, "find_passages", {"source": "PMC9990004", "query": "sleep"})
    assert page["status"] == listed["status"] == "UNAVAILABLE"
    assert listed["reason"] == page["reason"] and "not in the cache" in listed["reason"]
    assert listed["passages"] == [] and listed["total"] == 0
    assert listed["source"]["input"] == "PMC9990004" and listed["source"]["coverage"] == "none"


# ------------------------------------------------------------------------------ new tools


def test_resolve_handles_answers_each_handle(server: MCPServer, pinned: str) -> None:
    from citeproof.mcp.outputs import HandlesResult

    listed = structured(server, "find_passages", {"source": "PMC9990001", "query": "sleep onset"})
    handle = listed["passages"][0]["handle"]
    forged = handle[:-1] + ("0" if handle[-1] != "0" else "1")
    data = structured(server, "resolve_handles", {"handles": [handle, forged, "not a handle"]})
    result = HandlesResult.model_validate(data)
    assert [h.status for h in result.handles] == ["ok", "forged", "malformed"]
    assert result.handles[0].current_text == listed["passages"][0]["text"]
    assert result.by_status == {"forged": 1, "malformed": 1, "ok": 1}


def test_log_checkpoint_signs_what_verify_log_and_the_cli_check(
    server: MCPServer, run_cli: CliRun
) -> None:
    structured(server, "check_quote", {"quote": EXACT, "source": str(EXAMPLE)})
    signed = structured(server, "log_checkpoint", {})
    assert signed["size"] == 1
    assert signed["checkpoint"].startswith(f"{signed['origin']}\n1\n{signed['root']}\n")
    assert signed["key"].startswith(signed["checkpoint"].split("\u2014 ")[1].split(" ")[0])
    printed = run_cli("log", "checkpoint")
    assert printed.exit_code == 0 and printed.output == signed["checkpoint"]
    structured(server, "check_quote", {"quote": EXACT, "source": str(EXAMPLE)})
    report = structured(server, "verify_log", {"checkpoint": signed["checkpoint"]})
    assert report["ok"] is True and report["entries"] == 2 and report["checkpoint_size"] == 1
    assert error_text(server, "log_checkpoint", {"size": 1}).endswith(
        "size is not an argument of log_checkpoint (its arguments: none)."
    )


# ------------------------------------------------------------------------------ start-up


def test_the_server_starts_and_lists_its_tools_without_the_models_or_the_service() -> None:
    """The SDK derived every output schema from the models at start (about a fifth of a
    second); the schemas are cached and the models imported on a tool's first call."""
    probe = """
import anyio, sys
from mcp import Client
from citeproof.mcp.server import build_server

async def go():
    async with Client(build_server(log=False)) as client:
        return len((await client.list_tools()).tools)

print(anyio.run(go))
print(" ".join(sorted(m for m in sys.modules if m.startswith("citeproof"))))
"""
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout.splitlines()
    loaded = set(out[1].split())
    heavy = {m for m in loaded if m.startswith(("citeproof.models", "citeproof.service"))}
    assert heavy == set() and "citeproof.mcp.arguments" not in loaded
    assert out[0] == "14"
    assert "citeproof.mcp.summaries" not in loaded and "citeproof.mcp.outputs" not in loaded


def test_the_bench_prints_the_start_up_ratio_and_the_tools_list_size() -> None:
    bench = REPO / "bench" / "bench_mcp.py"
    out = subprocess.run(
        [sys.executable, str(bench), "--startup", "--quick", "--starts", "1"],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        timeout=300,
    ).stdout
    assert "| start-up ratio (citeproof / bare SDK server), median of the pairs |" in out
    (size,) = [line for line in out.splitlines() if "tools/list result size" in line]
    assert int(size.split("|")[2].split()[0]) <= MAX_TOOLS_LIST_BYTES
    assert "load average" in out


def test_every_tool_answers_through_the_sdk_client_within_its_output_schema(
    pinned: str,
) -> None:
    """One call of each tool (offline: nothing leaves the machine), both details where there
    are two; the client validates each result against the compact output schema."""
    from citeproof.mcp.server import TOOL_NAMES

    server = build_server(offline=True)
    calls: dict[str, dict[str, Any]] = {
        "check_quote": {"quote": EXACT, "source": "PMC9990001"},
        "check_quotes": {"items": [{"quote": NUMBERS_CHANGED, "source": "PMC9990001"}]},
        "read_source": {"source": "PMC9990001", "limit": 100},
        "resolve_identifier": {"identifier": "PMC9990001"},
        "retraction_status": {"identifier": "PMC9990001"},
        "search_literature": {"engine": "pubmed", "query": "walking"},
        "citing_papers": {"identifier": "W2474002222"},
        "verify_log": {},
        "record_support": {"seq": 1, "support": "absent", "by": "a test"},
        "find_passages": {"source": "PMC9990001", "limit": 2},
        "audit_answer": {"answer": f'It says "{EXACT}" (PMC9990001).'},
        "verify_references": {"references": ["Smith J. An invented title. A journal. 2019."]},
        "resolve_handles": {"handles": ["not a handle"]},
        "log_checkpoint": {},
    }
    assert list(calls) == list(TOOL_NAMES)
    tools = _tools(server)
    for name, arguments in calls.items():
        assert structured(server, name, arguments), name
        if "detail" in tools[name].input_schema["properties"]:
            assert full(server, name, arguments), name
