"""The s3-tests groups the embedded server claims, and the count of each
on two servers' junit reports (scripts/s3-tests.sh).

Every test of test_s3.py and test_headers.py that the run selects falls in
one group, by its name, the first pattern that matches: a group of
features the server does not implement (not claimed: ACLs, policies,
CORS, object lock, browser POST uploads, lifecycle, logging, websites,
bucket encryption and tags, SigV2), or one of the claimed groups. A
claimed group's tests that the server cannot pass for a reason outside
the group (an anonymous read needs a public ACL; one shared key makes
"another user" the owner) or that test what S3 itself does otherwise are
listed in NOT_CLAIMED, each with its reason. Of the rest, a test the
pinned MinIO fails is not claimed either.

usage: python3 groups.py EMBEDDED.xml MINIO.xml
"""

import re
import sys
import xml.etree.ElementTree as ET

UNCLAIMED = re.compile(
    r"acl|policy|cors|object_lock|lock|post_object|public|anon|lifecycle|logging|website|"
    r"encryption|sse_kms|kms|sse_s3|ownership|torrent|bucket_tagging|set_bucket_tagging|"
    r"accelerate|restore|select|append|_aws2|tenant|owner|bucket_create_naming|"
    r"expected_bucket|access_bucket|block_public|account|user")

GROUPS = [
    ("signature", re.compile(r"auth|signature|aws4|presign|expires|bad_date|amz_date|bad_ua")),
    ("checksums", re.compile(r"checksum|cksum|attributes|md5")),
    ("conditional", re.compile(r"_if_|if_match|if_none_match|ifmatch|ifnonematch|modified|conditional|atomic")),
    ("versioning", re.compile(r"version|delete_marker")),
    ("tagging", re.compile(r"tag")),
    ("multi-delete", re.compile(r"multi_object|delete_objects|multi_delete")),
    ("copy", re.compile(r"copy")),
    ("multipart", re.compile(r"multipart|upload_part|_part|list_uploads")),
    ("ranges", re.compile(r"range")),
    ("listing", re.compile(r"list|prefix|delimiter|marker|maxkeys|encoding_basic|continuation|startafter|fetchowner")),
    ("headers", re.compile(r"^test_(object|bucket)_create_bad|contentlength|content_length|contenttype|expect")),
    ("objects", re.compile(r".")),
]

# Tests in a claimed group that the embedded server does not claim, and
# why, by name (a regular expression matched from the start).
NOT_CLAIMED = [
    # Go's net/http answers an Expect other than 100-continue itself (417).
    (r"test_(object|bucket)_create_bad_expect_mismatch$", "Expect: 200 is refused by Go's HTTP server (417)"),
    # One key serves main, alt and tenant: "another user" is the owner.
    (r"test_bucket_create_exists_nonowner$", "one shared key: the other user owns the bucket"),
    (r"test_object_copy_not_owned_bucket$", "one shared key: the other user owns the bucket"),
    # ACLs: S3 refuses ACLs that grant anything on buckets created since
    # April 2023 (ObjectOwnership BucketOwnerEnforced), as this server does.
    (r"test_object_raw_|test_object_delete_key_bucket_gone$", "creates a public-read bucket (an ACL)"),
    (r"test_bucket_create_special_key_names$|test_100_continue$|test_object_copy_not_owned_object_bucket$"
     r"|test_bucket_list_return_data", "sets or reads an ACL"),
    (r"test_create_bucket_object_writer$", "object ownership other than BucketOwnerEnforced"),
    # S3 takes If-None-Match on a write with * only (501 for an ETag); these
    # tests ask for RGW's If-None-Match: ETAG.
    (r"test_(multipart_)?put_(current_)?object_if_(none_)?match$|test_put_object_current_if_match$",
     "If-None-Match with an ETag on a write: S3 answers 501, the test wants RGW's 412/200"),
]


def not_claimed(name):
    return any(re.match(p, name) for p, _ in NOT_CLAIMED)


def results(path):
    out = {}
    for tc in ET.parse(path).iter("testcase"):
        name = tc.get("name")
        if tc.find("skipped") is not None:
            out[name] = "skip"
        elif tc.find("failure") is not None or tc.find("error") is not None:
            out[name] = "fail"
        else:
            out[name] = "pass"
    return out


def group_of(name):
    base = name.split("[")[0]
    if UNCLAIMED.search(base):
        return None
    for group, pattern in GROUPS:
        if pattern.search(base):
            return group
    return None


def main():
    emb, minio = results(sys.argv[1]), results(sys.argv[2])
    # per group: tests, passed on embedded, on minio, claimed (minio passes
    # them), claimed passed on embedded
    rows = {g: [0, 0, 0, 0, 0] for g, _ in GROUPS}
    failed = []
    for name in sorted(set(emb) | set(minio)):
        g = group_of(name)
        if g is None or not_claimed(name.split("[")[0]):
            continue
        e, m = emb.get(name) == "pass", minio.get(name) == "pass"
        r = rows[g]
        r[0] += 1
        r[1] += e
        r[2] += m
        if m:  # where MinIO fails a test, it is not claimed
            r[3] += 1
            r[4] += e
            if not e:
                failed.append((g, name))
    print("%-13s %6s %9s %6s %8s %18s" % ("group", "tests", "embedded", "minio", "claimed", "claimed, embedded"))
    total = [0] * 5
    for g, _ in GROUPS:
        r = rows[g]
        total = [a + b for a, b in zip(total, r)]
        print("%-13s %6d %9d %6d %8d %18d" % (g, *r))
    print("%-13s %6d %9d %6d %8d %18d" % ("total", *total))
    print("every selected test: embedded %d of %d passed, minio %d of %d"
          % (sum(v == "pass" for v in emb.values()), len(emb), sum(v == "pass" for v in minio.values()), len(minio)))
    for g, name in failed:
        print("a claimed test the embedded server does not pass: %s %s" % (g, name))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
