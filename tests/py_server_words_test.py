#!/usr/bin/env python3
"""The Python comparison server (bench/python_server) counts words and splits units as the
service does for Chinese and Japanese: the cases of model/document_test.cc
(SplitUnits.ChineseAndJapaneseSentencesAndWords). A word count that differs moves a unit's
short flag and with it every score of the document (docs/benchmarks.md)."""
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location(
    "rpsum_py_server", os.path.join(ROOT, "bench", "python_server", "rpsum_py_server.py"))
server = importlib.util.module_from_spec(spec)
sys.argv = sys.argv[:1]
spec.loader.exec_module(server)

failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


for text, words in [("我们使用缓存。", 6), ("使用gRPC服务", 5), ("キャッシュを使う", 8),
                    ("캐시를 사용한다", 2), ("「引用」、逗号", 4), ("plain English words", 3),
                    ("  two\nlines ", 2), ("Élan vital", 2)]:
    check(f"count_words({text!r})", server.count_words(text.encode()), words)

zh = "缓存设计\n第一句话很重要。第二句话也很重要！第三句话呢？最后一句没有标点".encode()
units = server.split_units(zh)
check("Chinese units", [zh[u[0]:u[1]].decode() for u in units],
      ["缓存设计", "第一句话很重要。", "第二句话也很重要！", "第三句话呢？", "最后一句没有标点"])
if units:
    check("first Chinese unit's kind", units[0][2], server.HEADING)
check("words of 第一句话很重要。", server.count_words("第一句话很重要。".encode()), 7)
check("a line ending in an ideograph", server.ends_with_punctuation("没有标点".encode()), False)
check("a line ending in 。", server.ends_with_punctuation("重要。".encode()), True)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("py_server_words: the Python server counts CJK words and splits units as model/ does")
