"""Document frequencies of content words (AsciiWords of 4+ characters, model/document.h) over
unlabeled/ and the corpus and corpus-extra training splits, for rpsum-eval --idf_file.
  df.py DATA_DIR OUT.tsv   (OUT: the document count, then word<TAB>df for df >= 2)"""
import collections, gzip, json, re, sys

data, out = sys.argv[1], sys.argv[2]
word = re.compile(rb"[A-Za-z0-9]+")  # AsciiWords: ASCII letters and digits, ASCII lower case
df = collections.Counter()
n = 0
for path in [f"{data}/unlabeled/part-00.jsonl.gz", f"{data}/corpus/train.jsonl.gz",
             f"{data}/corpus-extra/train.jsonl.gz"]:
    for line in gzip.open(path, "rt"):
        text = json.loads(line)["document"]
        df.update({w.lower().decode() for w in word.findall(text.encode()) if len(w) >= 4})
        n += 1
with open(out, "w") as f:
    f.write(f"{n}\n")
    for w, c in sorted(df.items()):
        if c >= 2:
            f.write(f"{w}\t{c}\n")
