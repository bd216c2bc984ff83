#!/usr/bin/env bash
# Starts a one-node Ceph cluster with an S3 gateway on 127.0.0.1, the way
# Ceph's own developer setup (src/vstart.sh) does: one monitor, one OSD on
# a memory store (memstore), no manager, one cephx keyring for every
# daemon, and radosgw with one S3 user. Everything lives under DIR.
#
#   scripts/ceph-rgw.sh start DIR MON_PORT RGW_PORT ACCESS_KEY SECRET_KEY
#   scripts/ceph-rgw.sh stop DIR
#
# The credentials come from the environment as well (CEPH_RGW_ACCESS_KEY,
# CEPH_RGW_SECRET_KEY) when the arguments are "-", so that they need not
# be in argv. With CEPH_RGW_OWNER_PID set, the cluster stops by itself once
# that process is gone. Prints "ready http://127.0.0.1:RGW_PORT" when the gateway
# answers; on failure, says which part did not start and why, with the end
# of its log, and exits non-zero. scripts/install-ceph.sh installs the
# packages.
set -euo pipefail

die() { echo "ceph-rgw: $*" >&2; exit 1; }

logtail() { # the end of a daemon's log, for a failure message
  local f="$DIR/log/$1.log"
  [ -f "$f" ] && { echo "--- last lines of $f:" >&2; tail -n 15 "$f" >&2; }
  return 0
}

stop() {
  local pidf
  for pidf in "$DIR"/run/*.pid; do
    [ -f "$pidf" ] || continue
    local pid; pid=$(cat "$pidf")
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
    fi
  done
  local deadline=$((SECONDS + 20))
  for pidf in "$DIR"/run/*.pid; do
    [ -f "$pidf" ] || continue
    local pid; pid=$(cat "$pidf")
    while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
    rm -f "$pidf"
  done
}

# waitfor SECONDS WHAT COMMAND...: polls COMMAND until it succeeds.
waitfor() {
  local limit=$1 what=$2; shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.3 # polling a condition with a deadline
  done
}

need() {
  local b
  for b in "$@"; do
    command -v "$b" >/dev/null || die "$b is not installed: run scripts/install-ceph.sh (Debian's ceph-mon, ceph-osd, radosgw, ceph-common)"
  done
}

start() {
  need ceph-mon ceph-osd radosgw radosgw-admin ceph ceph-authtool monmaptool uuidgen curl
  [ "$(id -u)" = 0 ] || echo "ceph-rgw: not root; the daemons may fail to raise their limits (they say so in their logs)" >&2
  mkdir -p "$DIR"/{run,log,mon.a,osd.0}
  local fsid; fsid=$(uuidgen)
  local conf="$DIR/ceph.conf"
  cat >"$conf" <<EOF
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$MON_PORT]
public addr = 127.0.0.1
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
auth allow insecure global id reclaim = false
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon allow pool delete = true
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon max pg per osd = 1000
mon warn on pool no redundancy = false
mon data avail warn = 1
run dir = $DIR/run
pid file = $DIR/run/\$name.pid
admin socket = $DIR/run/\$name.asok
log file = $DIR/log/\$name.log
keyring = $DIR/keyring
ms bind ipv6 = false
[mon]
mon data = $DIR/mon.\$id
mon cluster log file = $DIR/log/cluster.log
[osd]
osd data = $DIR/osd.\$id
osd objectstore = memstore
memstore device bytes = 2147483648
osd memory target = 939524096
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:$RGW_PORT
rgw dns name = localhost
rgw enable usage log = false
rgw thread pool size = 64
EOF
  # One keyring for every daemon and the admin, imported into the
  # monitor's store when it is made (radosgw refuses a cluster without
  # cephx, so the cluster uses it).
  local kr="$DIR/keyring"
  ceph-authtool --create-keyring "$kr" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool "$kr" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' >/dev/null
  ceph-authtool "$kr" --gen-key -n osd.0 --cap mon 'allow profile osd' --cap osd 'allow *' --cap mgr 'allow profile osd' >/dev/null
  ceph-authtool "$kr" --gen-key -n client.rgw --cap mon 'allow rw' --cap osd 'allow rwx' --cap mgr 'allow rw' >/dev/null
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$MON_PORT]" "$DIR/monmap" >/dev/null
  ceph-mon -c "$conf" --mkfs -i a --monmap "$DIR/monmap" --keyring "$DIR/keyring" >"$DIR/log/mkfs-mon.log" 2>&1 \
    || { cat "$DIR/log/mkfs-mon.log" >&2; die "the monitor's store could not be made (ceph-mon --mkfs)"; }
  ceph-mon -c "$conf" -i a || { logtail mon.a; die "the monitor (ceph-mon) did not start"; }
  waitfor 30 monitor ceph -c "$conf" --connect-timeout 5 mon stat \
    || { logtail mon.a; die "the monitor did not answer within 30 s on 127.0.0.1:$MON_PORT"; }
  local osd_uuid; osd_uuid=$(uuidgen)
  ceph -c "$conf" osd new "$osd_uuid" 0 >/dev/null || die "the monitor refused the OSD (ceph osd new)"
  ceph-osd -c "$conf" -i 0 --mkfs --osd-uuid "$osd_uuid" >"$DIR/log/mkfs-osd.log" 2>&1 \
    || { cat "$DIR/log/mkfs-osd.log" >&2; die "the OSD's memstore could not be made (ceph-osd --mkfs)"; }
  ceph-osd -c "$conf" -i 0 || { logtail osd.0; die "the OSD (ceph-osd, memstore) did not start"; }
  waitfor 60 osd sh -c "ceph -c '$conf' osd dump 2>/dev/null | grep -q '^osd.0 up'" \
    || { logtail osd.0; die "the OSD did not come up within 60 s"; }
  radosgw -c "$conf" -n client.rgw || { logtail client.rgw; die "the gateway (radosgw) did not start"; }
  waitfor 90 gateway curl -sf -o /dev/null "http://127.0.0.1:$RGW_PORT/" \
    || { logtail client.rgw; die "the gateway did not answer within 90 s on 127.0.0.1:$RGW_PORT"; }
  radosgw-admin -c "$conf" -n client.rgw user create --uid=objbench --display-name=objbench \
    --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" >"$DIR/log/user.log" 2>&1 \
    || { cat "$DIR/log/user.log" >&2; die "radosgw-admin could not create the S3 user"; }
  if [ -n "${CEPH_RGW_OWNER_PID:-}" ]; then
    # The daemons run on their own: when the process that asked for them
    # is gone (a test killed before its cleanup), stop them.
    nohup bash -c 'while kill -0 "$1" 2>/dev/null && [ -d "$3" ]; do sleep 1; done; "$2" stop "$3"' \
      watch "$CEPH_RGW_OWNER_PID" "$0" "$DIR" >/dev/null 2>&1 &
  fi
  echo "ready http://127.0.0.1:$RGW_PORT"
}

case "${1:-}" in
start)
  [ $# -eq 6 ] || die "usage: $0 start DIR MON_PORT RGW_PORT ACCESS_KEY SECRET_KEY"
  DIR=$2 MON_PORT=$3 RGW_PORT=$4 ACCESS_KEY=$5 SECRET_KEY=$6
  [ "$ACCESS_KEY" = - ] && ACCESS_KEY=${CEPH_RGW_ACCESS_KEY:?CEPH_RGW_ACCESS_KEY is not set}
  [ "$SECRET_KEY" = - ] && SECRET_KEY=${CEPH_RGW_SECRET_KEY:?CEPH_RGW_SECRET_KEY is not set}
  trap 'stop' EXIT # a failed start leaves no daemon behind
  start
  trap - EXIT
  ;;
stop)
  [ $# -eq 2 ] || die "usage: $0 stop DIR"
  DIR=$2
  stop
  ;;
*) die "usage: $0 start DIR MON_PORT RGW_PORT ACCESS_KEY SECRET_KEY | stop DIR" ;;
esac
