// Upload every file of a directory to s3://BUCKET/PREFIX with the AWS SDK
// for JavaScript v3.
//
// The js-sdk profile of `objbench tools` runs this script with node: a pool
// keeps --workers files in flight, and each file goes through the SDK's
// managed upload (@aws-sdk/lib-storage Upload) with --queue-size parts in
// flight. Credentials and region come from the environment
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION). Exits non-zero,
// naming the file, on the first failure.
"use strict";
const fs = require("fs");
const path = require("path");
const http = require("http");
const https = require("https");
const { S3Client } = require("@aws-sdk/client-s3");
const { Upload } = require("@aws-sdk/lib-storage");
const { NodeHttpHandler } = require("@smithy/node-http-handler");

function args() {
  const a = { workers: 1, queueSize: 1 };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i], v = argv[i + 1];
    if (k === "--src") a.src = v;
    else if (k === "--bucket") a.bucket = v;
    else if (k === "--prefix") a.prefix = v;
    else if (k === "--endpoint-url") a.endpoint = v;
    else if (k === "--workers") a.workers = parseInt(v, 10);
    else if (k === "--queue-size") a.queueSize = parseInt(v, 10);
    else throw new Error("unknown argument " + k);
  }
  if (!a.src || !a.bucket || a.prefix === undefined) throw new Error("need --src, --bucket and --prefix");
  return a;
}

async function main() {
  const a = args();
  const names = fs.readdirSync(a.src).filter((n) => fs.statSync(path.join(a.src, n)).isFile()).sort();
  const sockets = a.workers * a.queueSize + 2;
  const client = new S3Client({
    endpoint: a.endpoint,
    forcePathStyle: true,
    requestHandler: new NodeHttpHandler({
      httpAgent: new http.Agent({ keepAlive: true, maxSockets: sockets }),
      httpsAgent: new https.Agent({ keepAlive: true, maxSockets: sockets }),
    }),
  });
  let next = 0;
  async function worker() {
    while (next < names.length) {
      const name = names[next++];
      try {
        await new Upload({
          client,
          queueSize: a.queueSize,
          params: { Bucket: a.bucket, Key: a.prefix + name, Body: fs.createReadStream(path.join(a.src, name)) },
        }).done();
      } catch (e) {
        throw new Error("upload " + name + ": " + e.message);
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(a.workers, names.length) }, worker));
}

main().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
