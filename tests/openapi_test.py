#!/usr/bin/env python3
"""server/openapi.json describes the HTTP API as built: every endpoint server/http.cc serves,
every proto message under its JSON field names, and it is what server/make_openapi.py makes
from the proto now (so editing the proto without regenerating fails here)."""
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
import make_openapi  # noqa: E402

DOC = json.loads((ROOT / "server/openapi.json").read_text())


class OpenApiTest(unittest.TestCase):
    def test_every_served_endpoint_is_described(self):
        code = (ROOT / "server/http.cc").read_text()
        served = set(re.findall(r'server(?:\.|->)(Get|Post)\("([^"]+)"', code))
        self.assertGreaterEqual(len(served), 8, served)
        for method, path in served:
            self.assertIn(path, DOC["paths"], f"{method} {path} is served but not described")
            self.assertIn(method.lower(), DOC["paths"][path], f"{method} {path}")
        described = {(m, p) for p, ops in DOC["paths"].items() for m in ops}
        self.assertEqual(described, {(m.lower(), p) for m, p in served},
                         "described endpoints that are not served")

    def test_field_names_are_the_protos_json_names(self):
        messages, _ = make_openapi.parse_proto(make_openapi.PROTO.read_text())
        self.assertIn("SummarizeRequest", messages)
        for name, fields in messages.items():
            want = {make_openapi.camel(f) for f, _, _ in fields}
            got = set(DOC["components"]["schemas"][name]["properties"])
            self.assertEqual(got, want, name)
        self.assertIn("maxWords", DOC["components"]["schemas"]["SummarizeRequest"]["properties"])

    def test_committed_file_is_current(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / "openapi.json"
            subprocess.run([sys.executable, str(ROOT / "server/make_openapi.py"), str(out)],
                           check=True)
            self.assertEqual(out.read_text(), (ROOT / "server/openapi.json").read_text(),
                             "run server/make_openapi.py")


if __name__ == "__main__":
    unittest.main()
