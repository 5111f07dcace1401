#!/usr/bin/env python3
"""The layer check passes on the tree and fails on each planted violation."""
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CHECK = HERE / "check_layers.py"


def run(root):
    return subprocess.run([sys.executable, str(CHECK), str(root)], capture_output=True, text=True)


class CheckLayersTest(unittest.TestCase):
    def test_tree_is_clean(self):
        r = run(ROOT)
        self.assertEqual(r.returncode, 0, r.stdout)

    def plant(self, rel, text):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            for d in ("base", "model", "server", "client", "train", "testing"):
                shutil.copytree(ROOT / d, tmp / d, ignore=shutil.ignore_patterns("build"))
            target = tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            return run(tmp)

    def test_internal_header_from_another_folder_fails(self):
        r = self.plant("server/planted.cc", '#include "model/internal/features.h"\n')
        self.assertEqual(r.returncode, 1)
        self.assertIn("an internal header", r.stdout)
        self.assertEqual(self.plant("model/planted.cc",
                                    '#include "model/internal/features.h"\n').returncode, 0)

    def test_torch_in_server_fails(self):
        r = self.plant("server/planted.cc", '#include "torch/torch.h"\n')
        self.assertEqual(r.returncode, 1)
        self.assertIn("server/planted.cc:1", r.stdout)

    def test_grpc_in_model_fails(self):
        r = self.plant("model/planted.h", "#include <grpcpp/grpcpp.h>\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("model/planted.h:1", r.stdout)

    def test_proto_types_in_model_fail(self):
        r = self.plant("model/planted.cc", '#include "rpsum/v1/summarizer.pb.h"\n')
        self.assertEqual(r.returncode, 1)

    def test_prometheus_in_scheduler_fails(self):
        r = self.plant("server/scheduler/planted.cc", "#include <prometheus/counter.h>\n")
        self.assertEqual(r.returncode, 1)

    def test_torch_in_scheduler_fails(self):
        r = self.plant("server/scheduler/planted.cc", "#include <ATen/ATen.h>\n")
        self.assertEqual(r.returncode, 1)

    def test_server_code_in_client_fails(self):
        r = self.plant("client/planted.cc", '#include "server/service.h"\n')
        self.assertEqual(r.returncode, 1)

    def test_torch_in_model_api_fails(self):
        r = self.plant("model/planted.cc", "#include <torch/nn.h>\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("model/planted.cc:1", r.stdout)

    def test_train_in_server_fails(self):
        r = self.plant("server/planted.cc", '#include "train/rouge.h"\n')
        self.assertEqual(r.returncode, 1)
        self.assertIn("never links training", r.stdout)

    def test_train_in_client_fails(self):
        r = self.plant("client/planted.cc", '#include "train/corpus.h"\n')
        self.assertEqual(r.returncode, 1)

    def test_train_in_model_library_fails(self):
        r = self.plant("model/torch/planted.cc", '#include "train/evaluate.h"\n')
        self.assertEqual(r.returncode, 1)

    def test_torch_in_test_doubles_fails(self):
        r = self.plant("testing/planted.h", "#include <ATen/ATen.h>\n")
        self.assertEqual(r.returncode, 1)

    def test_allowed_includes_pass(self):
        r = self.plant("model/torch/fine.cc",
                       '#include <torch/nn.h>\n#include "absl/status/status.h"\n')
        self.assertEqual(r.returncode, 0, r.stdout)
        r = self.plant("train/fine.cc", '#include <ATen/ATen.h>\n#include "model/select.h"\n')
        self.assertEqual(r.returncode, 0, r.stdout)
        r = self.plant("model/fine_test.cc", '#include "train/corpus.h"\n')
        self.assertEqual(r.returncode, 0, r.stdout)


if __name__ == "__main__":
    unittest.main()
