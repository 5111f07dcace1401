#!/usr/bin/env python3
"""Writes server/openapi.json, the OpenAPI 3 description of the HTTP/JSON API (server/http.h),
from proto/rpsum/v1/summarizer.proto: the schemas are the proto messages under their JSON
names (lowerCamelCase; 64-bit integers as strings, as protobuf's JSON mapping prints them),
except that text (`document`, `title`, `sentences`) is plain JSON strings, not base64.

usage: make_openapi.py [OUT]   (default: server/openapi.json next to this file)
The gate's style.openapi test checks the committed file against the proto.
"""
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
PROTO = ROOT / "proto/rpsum/v1/summarizer.proto"

SCALARS = {
    "uint32": {"type": "integer", "format": "int32", "minimum": 0},
    "int32": {"type": "integer", "format": "int32"},
    "uint64": {"type": "string", "format": "uint64", "description": "64-bit integer as a string"},
    "int64": {"type": "string", "format": "int64", "description": "64-bit integer as a string"},
    "float": {"type": "number", "format": "float"},
    "double": {"type": "number", "format": "double"},
    "bool": {"type": "boolean"},
    "string": {"type": "string"},
    "bytes": {"type": "string", "description": "UTF-8 text as a plain JSON string (not base64)"},
}


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def parse_proto(text: str):
    """(messages: name -> [(field, type, repeated)], enums: name -> [value names])."""
    text = re.sub(r"//[^\n]*", "", text)
    messages, enums = {}, {}
    for m in re.finditer(r"\benum\s+(\w+)\s*\{([^}]*)\}", text):
        enums[m.group(1)] = re.findall(r"(\w+)\s*=\s*\d+\s*;", m.group(2))
    for m in re.finditer(r"\bmessage\s+(\w+)\s*\{", text):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        body = text[m.end():i - 1]
        fields = re.findall(r"(repeated\s+)?([\w.]+)\s+(\w+)\s*=\s*\d+\s*;", body)
        messages[m.group(1)] = [(f, t, bool(r)) for r, t, f in fields]
    return messages, enums


def schema_of(messages, enums):
    schemas = {}
    for name, fields in messages.items():
        props = {}
        for field, typ, repeated in fields:
            if typ in SCALARS:
                s = dict(SCALARS[typ])
            elif typ in enums:
                s = {"type": "string", "enum": enums[typ]}
            else:
                s = {"$ref": f"#/components/schemas/{typ}"}
            if name == "SummarizeRequest" and field == "sentences":
                # Plain form: an array of strings (the proto's {"sentences": [...]} works too).
                s = {"type": "array", "items": {"type": "string"},
                     "description": "the document already split into sentences, plain strings"}
            elif repeated:
                s = {"type": "array", "items": s}
            props[camel(field)] = s
        schemas[name] = {"type": "object", "properties": props}
    schemas["Error"] = {
        "type": "object",
        "properties": {"error": {"type": "object", "properties": {
            "code": {"type": "string", "description": "gRPC status code name"},
            "message": {"type": "string"}}}}}
    return schemas


def responses(ok_schema, ok_type="application/json"):
    err = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    out = {"200": {"description": "OK", "content": {ok_type: {"schema": ok_schema}}}}
    for code, what in [("400", "invalid input (the message says what and where)"),
                       ("401", "missing or wrong bearer token"),
                       ("413", "body larger than the document limit"),
                       ("429", "queue full; see the Retry-After header"),
                       ("503", "starting or draining"), ("504", "deadline passed")]:
        out[code] = dict(err, description=what)
    return out


def document(messages, enums):
    ref = lambda n: {"$ref": f"#/components/schemas/{n}"}
    query = [
        {"name": n, "in": "query", "required": False, "schema": s, "description": d}
        for n, s, d in [
            ("max_words", {"type": "integer"}, "summary length in words"),
            ("max_sentences", {"type": "integer"}, "summary length in sentences"),
            ("ratio", {"type": "number"}, "summary length as a fraction of the input's words"),
            ("title", {"type": "string"}, "document title"),
            ("clip_distance", {"type": "integer"}, "override the model's clip distance k"),
            ("truncation", {"type": "string", "enum": ["reject", "head", "head_and_tail"]},
             "what to do past the input limits"),
            ("priority", {"type": "string", "enum": ["low", "normal", "high"]}, "queue priority"),
            ("keep_redundant", {"type": "boolean"}, "turn trigram blocking off"),
            ("return_all_scores", {"type": "boolean"}, "every unit's score in the response"),
            ("return_extracted_text", {"type": "boolean"},
             "the text extracted from Markdown, HTML or PDF in the response"),
            ("content_type", {"type": "string"},
             "the document's type when the Content-Type header cannot say it"),
        ]]
    headers = [
        {"name": "Authorization", "in": "header", "required": False, "schema": {"type": "string"},
         "description": "Bearer <token>, when the server requires one"},
        {"name": "X-Timeout-Ms", "in": "header", "required": False,
         "schema": {"type": "integer"}, "description": "deadline in milliseconds"},
        {"name": "X-Request-Id", "in": "header", "required": False,
         "schema": {"type": "string"}, "description": "echoed back; made when absent"},
    ]
    body = {"required": True, "content": {
        "application/json": {"schema": ref("SummarizeRequest")},
        "text/plain": {"schema": {"type": "string"},
                       "description": "the document itself; options as query parameters"},
        "text/markdown": {"schema": {"type": "string"},
                          "description": "a GitHub Markdown document; options as query parameters"},
        "text/html": {"schema": {"type": "string"},
                      "description": "an HTML page; options as query parameters"},
        "application/pdf": {"schema": {"type": "string", "format": "binary"},
                            "description": "a PDF; options as query parameters"}}}
    text = lambda d: {"200": {"description": d, "content": {"text/plain": {
        "schema": {"type": "string"}}}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "rpsum", "version": "v1", "description":
                 "Extractive summarization with relative position representations. The same "
                 "service as gRPC rpsum.v1.Summarizer (proto/rpsum/v1/summarizer.proto)."},
        "paths": {
            "/v1/summarize": {"post": {"summary": "Summarize a document",
                                       "parameters": query + headers, "requestBody": body,
                                       "responses": responses(ref("SummarizeResponse"))}},
            "/v1/estimate": {"post": {"summary": "What Summarize would cost, without the model",
                                      "parameters": query + headers, "requestBody": body,
                                      "responses": responses(ref("EstimateResponse"))}},
            "/v1/model": {"get": {"summary": "The model and the server's limits",
                                  "parameters": headers,
                                  "responses": responses(ref("ModelInfo"))}},
            "/metrics": {"get": {"summary": "Prometheus metrics (text format)",
                                 "responses": text("metrics")}},
            "/healthz": {"get": {"summary": "Liveness: 200 while the process answers",
                                 "responses": text("alive")}},
            "/readyz": {"get": {"summary": "Readiness: 200 when serving, 503 loading or draining",
                                "responses": dict(text("ready"), **{"503": {
                                    "description": "not ready"}})}},
            "/": {"get": {"summary": "A page: paste a document, see the sentences it picks",
                          "responses": {"200": {"description": "HTML", "content": {
                              "text/html": {"schema": {"type": "string"}}}}}}},
            "/openapi.json": {"get": {"summary": "This description",
                                      "responses": {"200": {"description": "OpenAPI 3",
                                                            "content": {"application/json": {
                                                                "schema": {"type": "object"}}}}}}},
        },
        "components": {"schemas": schema_of(messages, enums)},
    }


def main(argv):
    out = pathlib.Path(argv[1]) if len(argv) > 1 else ROOT / "server/openapi.json"
    messages, enums = parse_proto(PROTO.read_text())
    out.write_text(json.dumps(document(messages, enums), indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
