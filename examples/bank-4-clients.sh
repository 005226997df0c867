#!/bin/sh
# Writes the clients' files of bank-4-clients.toml: Bank Marketing with an
# id column, every 5th row a test row, and each row's label in the file of
# exactly one client (a fixed pseudo-random choice); in the other clients'
# files its label cell is empty. Every client's file holds every column; the
# session file gives each client its own features.
#
#   sh examples/bank-4-clients.sh [BANK_MARKETING.csv.gz [OUT_DIR]]
#
# Defaults: ../shared/datasets/bank_marketing.csv.gz beside this repository,
# and /tmp/veil-bank-4-clients (the folder the session file names).
set -eu
here=$(dirname "$0")
src=${1:-$here/../../shared/datasets/bank_marketing.csv.gz}
out=${2:-/tmp/veil-bank-4-clients}
mkdir -p "$out"
gzip -dc "$src" | awk -F, -v out="$out" '
NR == 1 {
  for (c = 0; c < 4; c++)
    for (s = 0; s < 2; s++) {
      f[c, s] = "gzip -c > " out "/client" c (s ? "_test" : "_train") ".csv.gz"
      print "id," $0 | f[c, s]
    }
  state = 1
  next
}
{
  row = NR - 1
  s = (row % 5 == 0)
  state = (state * 75 + 74) % 65537
  owner = state % 4
  body = $1
  for (i = 2; i < NF; i++)
    body = body "," $i
  for (c = 0; c < 4; c++)
    print row "," body "," (c == owner ? $NF : "") | f[c, s]
}
END {
  for (k in f)
    close(f[k])
}'
echo "wrote $out/client{0,1,2,3}_{train,test}.csv.gz"
