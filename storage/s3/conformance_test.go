package s3_test

import (
	"testing"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/storagetest"
)

func TestConformance(t *testing.T) {
	s := bucketStore(t) // one bucket shared by all subtests, as on a real endpoint
	storagetest.Run(t, func(*testing.T) storage.Store { return s })
}
