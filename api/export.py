"""The graph of a scope for other graph tools:

    GET /export/<scope>.graphml?asOf=…&from=…&to=…   GraphML (Gephi, yEd, Cytoscape desktop)
    GET /export/<scope>.cyjs?asOf=…&from=…&to=…      Cytoscape JSON (elements.nodes/edges)

Built from the storyGraph read (`jobs.story.reads.story_graph`, the same use case, scope and
role check and size cap as GraphQL): events and entities are nodes, relations (entity ->
entity) and changes (event -> entity) are edges, with names, kinds, status, confirmation and
times as attributes. Same tokens as GraphQL: with tokens configured, no valid token is 401;
a scope the token cannot use answers 404 exactly like a scope that holds nothing.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import request_response
from starlette.types import ASGIApp

from api.auth import authenticate
from engine.errors import ErrorCode, Forbidden, InvalidInput, StorygraphError
from engine.principal import Principal
from engine.scope import check_scope
from engine.settings import Settings
from engine.story.views import StoryGraph
from jobs import scopes
from jobs.deps import Deps
from jobs.story import reads

FORMATS = {"graphml": "application/graphml+xml", "cyjs": "application/json"}
STATUS = {
    ErrorCode.INVALID_INPUT: 400,
    ErrorCode.UNAUTHENTICATED: 401,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.TIMEOUT: 504,
    ErrorCode.UNAVAILABLE: 503,
}
# (name, GraphML type) of every attribute, for nodes and for edges; absent values are left out
NODE_KEYS = (
    ("label", "string"),
    ("kind", "string"),  # "entity" or "event"
    ("entity_kind", "string"),  # an entity's own kind (person, module, ...)
    ("status", "string"),
    ("description", "string"),
    ("at", "string"),
    ("valid_from", "string"),
    ("valid_to", "string"),
    ("recorded_at", "string"),
    ("seq", "int"),
)
EDGE_KEYS = (
    ("label", "string"),
    ("kind", "string"),  # "relation" or "change"
    ("confirmation", "string"),
    ("reason", "string"),
    ("removed", "boolean"),
    ("valid_from", "string"),
    ("valid_to", "string"),
    ("recorded_at", "string"),
    ("seq", "int"),
)


def _time(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def elements(graph: StoryGraph) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Nodes and edges of one storyGraph answer, each a flat dict of attributes."""
    nodes: list[dict[str, Any]] = []
    for ev in graph.events:
        nodes.append(
            {
                "id": ev.id,
                "label": ev.title,
                "kind": "event",
                "description": ev.description,
                "at": _time(ev.at),
                "recorded_at": _time(ev.recorded_at),
                "seq": ev.seq,
            }
        )
    for en in graph.entities:
        nodes.append(
            {
                "id": en.id,
                "label": en.name,
                "kind": "entity",
                "entity_kind": en.kind,
                "status": en.status.value,
                "description": en.description,
                "valid_from": _time(en.valid_from),
                "valid_to": _time(en.valid_to),
                "recorded_at": _time(en.recorded_at),
                "seq": en.seq,
            }
        )
    present = {n["id"] for n in nodes}
    edges: list[dict[str, Any]] = []
    for r in graph.relations:
        if r.from_id in present and r.to_id in present:
            edges.append(
                {
                    "id": r.id,
                    "source": r.from_id,
                    "target": r.to_id,
                    "label": r.type,
                    "kind": "relation",
                    "confirmation": r.confirmation.value,
                    "reason": r.reason,
                    "removed": r.removed,
                    "valid_from": _time(r.valid_from),
                    "valid_to": _time(r.valid_to),
                    "recorded_at": _time(r.recorded_at),
                    "seq": r.seq,
                }
            )
    for c in graph.changes:
        if c.event_id in present and c.entity_id in present:
            edges.append(
                {
                    "id": c.id,
                    "source": c.event_id,
                    "target": c.entity_id,
                    "label": c.kind.value,
                    "kind": "change",
                    "recorded_at": _time(c.recorded_at),
                }
            )
    return nodes, edges


def _plain(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def cytoscape(graph: StoryGraph) -> dict[str, Any]:
    nodes, edges = elements(graph)
    return {
        "data": {"scope": graph.scope, "asOf": _time(graph.as_of), "name": graph.scope},
        "elements": {
            "nodes": [{"data": _plain(n)} for n in nodes],
            "edges": [{"data": _plain(e)} for e in edges],
        },
    }


def graphml(graph: StoryGraph) -> bytes:
    nodes, edges = elements(graph)
    root = ET.Element("graphml", xmlns="http://graphml.graphdrawing.org/xmlns")
    ET.SubElement(root, "key", {"id": "g_scope", "for": "graph", "attr.name": "scope",
                                "attr.type": "string"})  # fmt: skip
    ET.SubElement(root, "key", {"id": "g_as_of", "for": "graph", "attr.name": "as_of",
                                "attr.type": "string"})  # fmt: skip
    for where, keys in (("node", NODE_KEYS), ("edge", EDGE_KEYS)):
        for name, kind in keys:
            attrs = {"id": f"{where[0]}_{name}", "for": where, "attr.name": name,
                     "attr.type": kind}  # fmt: skip
            ET.SubElement(root, "key", attrs)
    g = ET.SubElement(root, "graph", id=graph.scope, edgedefault="directed")
    ET.SubElement(g, "data", key="g_scope").text = graph.scope
    ET.SubElement(g, "data", key="g_as_of").text = _time(graph.as_of)
    for where, items, keys in (("node", nodes, NODE_KEYS), ("edge", edges, EDGE_KEYS)):
        for item in items:
            if where == "node":
                el = ET.SubElement(g, "node", id=item["id"])
            else:
                el = ET.SubElement(
                    g, "edge", id=item["id"], source=item["source"], target=item["target"]
                )
            for name, kind in keys:
                value = item.get(name)
                if value is None:
                    continue
                text = str(value).lower() if kind == "boolean" else str(value)
                ET.SubElement(el, "data", key=f"{where[0]}_{name}").text = text
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def _instant(request: Request, name: str) -> datetime | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"{name} is not an ISO 8601 time", field=name) from None
    if value.utcoffset() is None:
        raise InvalidInput(f"{name} needs a time zone", field=name)
    return value


def _error(exc: StorygraphError) -> JSONResponse:
    status = STATUS.get(exc.code, 500 if exc.code is ErrorCode.INTERNAL else 400)
    return JSONResponse({"error": str(exc), "code": exc.code.value}, status_code=status)


def _not_found() -> JSONResponse:
    return JSONResponse({"error": "no such scope", "code": "NOT_FOUND"}, status_code=404)


def export_endpoint(settings: Settings) -> ASGIApp:
    """The /export/{file} endpoint (wrap it in TokenGate for the origin check)."""

    async def export(request: Request) -> Response:
        return await _export(settings, request)

    return request_response(export)


async def _export(settings: Settings, request: Request) -> Response:
    principal: Principal | None = authenticate(settings, request.headers.get("authorization"))
    if principal is None:
        return JSONResponse(
            {"error": "a valid bearer token is required", "code": "UNAUTHENTICATED"},
            status_code=401,
            headers={"WWW-Authenticate": "Bearer"},
        )
    scope, _, fmt = str(request.path_params["file"]).rpartition(".")
    if fmt not in FORMATS or not scope:
        return _not_found()
    try:
        check_scope(scope)
    except InvalidInput:
        return _not_found()
    deps = Deps(settings=settings, driver=request.app.state.driver, pool=request.app.state.pool)
    try:
        graph = await reads.story_graph(
            deps,
            principal,
            scope,
            as_of=_instant(request, "asOf"),
            from_=_instant(request, "from"),
            to=_instant(request, "to"),
        )
        if not (graph.events or graph.entities):
            # nothing at that moment: a scope that holds nothing at all is a missing one
            if not await scopes.holds_data(deps, scope):
                return _not_found()
    except Forbidden:
        return _not_found()  # a scope the token cannot use reads like a missing one
    except StorygraphError as exc:
        return _error(exc)
    filename = f"{scope}.{fmt}"
    headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
    if fmt == "graphml":
        return Response(graphml(graph), media_type=FORMATS[fmt], headers=headers)
    body = json.dumps(cytoscape(graph), ensure_ascii=False).encode()
    return Response(body, media_type=FORMATS[fmt], headers=headers)
