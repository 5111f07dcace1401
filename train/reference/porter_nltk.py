#!/usr/bin/env python3
"""Stems each line of IN with NLTK's PorterStemmer(mode=ORIGINAL_ALGORITHM), the stemmer
Google's rouge-score uses, and writes one stem per line to OUT. usage: porter_nltk.py IN OUT"""
import sys

from nltk.stem import porter

stemmer = porter.PorterStemmer(porter.PorterStemmer.ORIGINAL_ALGORITHM)
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for line in f:
        out.write(stemmer.stem(line.rstrip("\n")) + "\n")
