package workload

// Exported for tests.
var (
	S3BucketName    = s3BucketName
	ValidBucketName = validBucketName
)
