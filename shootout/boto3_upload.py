"""Upload every file of a directory to s3://BUCKET/PREFIX with boto3.

The boto3 profile of `objbench tools` runs this script: a thread pool keeps
--workers files in flight, and each file goes through boto3's managed
transfer (upload_file) with TransferConfig(max_concurrency=--max-concurrency)
parts in flight. Credentials and region come from the environment
(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION). Exits non-zero,
naming the file, on the first failure.
"""
import argparse
import concurrent.futures
import os
import sys

import boto3
import botocore.config
from boto3.s3.transfer import TransferConfig


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--bucket", required=True)
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--endpoint-url")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--max-concurrency", type=int, default=1)
    a = ap.parse_args()

    names = sorted(n for n in os.listdir(a.src) if os.path.isfile(os.path.join(a.src, n)))
    pool_size = a.workers * a.max_concurrency + 2
    client = boto3.client(
        "s3",
        endpoint_url=a.endpoint_url,
        config=botocore.config.Config(max_pool_connections=pool_size, s3={"addressing_style": "path"}),
    )
    transfer = TransferConfig(max_concurrency=a.max_concurrency, use_threads=a.max_concurrency > 1)

    def upload(name):
        client.upload_file(os.path.join(a.src, name), a.bucket, a.prefix + name, Config=transfer)
        return name

    with concurrent.futures.ThreadPoolExecutor(max_workers=a.workers) as pool:
        futures = {pool.submit(upload, n): n for n in names}
        for f in concurrent.futures.as_completed(futures):
            try:
                f.result()
            except Exception as e:  # report which file, then stop
                print(f"upload {futures[f]}: {e}", file=sys.stderr)
                for other in futures:
                    other.cancel()
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
