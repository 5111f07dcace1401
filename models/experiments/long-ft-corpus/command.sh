#!/usr/bin/env bash
# long-ft-corpus (issue #74): long-ft without ScisummNet. Is the design documents' loss in
# long-ft ScisummNet's pull, or the extra epoch's? long-ft's command (../long-ft/command.sh:
# v2.5's network fine-tuned one more epoch on whole documents up to 65,536 tokens, the recipe's
# reranking fit, v2.5 and it on the valid splits, paired) on corpus + corpus-extra + the
# long-document set's train split (train/longdocs). Resumable: run the same command again.
#   models/experiments/long-ft-corpus/command.sh [OUT]      (default runs/long-ft-corpus)
set -euo pipefail
data=${RPSUM_DATA_DIR:-../shared/data}
LONG_FT_NAME=long-ft-corpus LONG_FT_DATA="$data/corpus,$data/corpus-extra,train/longdocs" \
  exec "$(dirname "$0")/../long-ft/command.sh" "$@"
