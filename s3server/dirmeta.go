package s3server

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// A directory store's records: one JSON file per version (and delete
// marker), and a bucket's versioning state.

// metaFile is what DIR/<bucket>/<id>.meta holds.
type metaFile struct {
	Key       string            `json:"key"`
	Version   string            `json:"version,omitempty"`
	Marker    bool              `json:"delete_marker,omitempty"`
	MD5       string            `json:"md5"`
	Parts     int               `json:"parts,omitempty"`
	PartSizes []int64           `json:"part_sizes,omitempty"`
	Mod       time.Time         `json:"mod"`
	Meta      map[string]string `json:"meta,omitempty"`
	Tags      []tag             `json:"tags,omitempty"`
	Checksum  checksum          `json:"checksum,omitzero"`
	PartSums  []string          `json:"part_sums,omitempty"`
	SSEKey    string            `json:"sse_customer_key_md5,omitempty"`
	Segments  []segMeta         `json:"segments"`
}

type segMeta struct {
	File string `json:"file"` // base name in the bucket directory
	Size int64  `json:"size"`
}

// commit writes obj's record: beside its body, or a file of its own for
// a delete marker.
func (d *dirBlobs) commit(bucket string, obj *object) error {
	mf := metaFile{Key: obj.key, Version: obj.version, Marker: obj.marker, MD5: hex.EncodeToString(obj.hash),
		Parts: len(obj.parts), PartSizes: obj.parts, Mod: obj.mod, Meta: obj.attrs.headers, Tags: obj.attrs.tags,
		Checksum: obj.attrs.sum, PartSums: obj.attrs.partSums, SSEKey: obj.attrs.sseKey}
	path := obj.record
	if fb, ok := obj.body.(*fileBlob); ok {
		path = fb.meta
		for _, seg := range fb.segs {
			mf.Segments = append(mf.Segments, segMeta{File: filepath.Base(seg.path), Size: seg.n})
		}
	}
	if path == "" {
		dir, err := d.bucketDir(bucket)
		if err != nil {
			return err
		}
		path = filepath.Join(dir, d.newID()+".meta")
		obj.record = path
	}
	js, err := json.Marshal(mf)
	if err != nil {
		return err
	}
	return os.WriteFile(path, js, 0o644)
}

func (d *dirBlobs) release(obj *object) {
	if obj.body != nil {
		d.releaseBlob(obj.body)
	} else if obj.record != "" {
		_ = os.Remove(obj.record)
	}
}

func (d *dirBlobs) releaseBlob(b blob) {
	fb := b.(*fileBlob)
	fb.mu.Lock()
	fb.dead = true
	idle := fb.refs == 0
	fb.mu.Unlock()
	if idle {
		fb.removeFiles()
	}
}

// versioningFile keeps a bucket's versioning state.
const versioningFile = "versioning.bucket"

func (d *dirBlobs) saveBucket(name, versioning string) error {
	dir, err := d.bucketDir(name)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, versioningFile), []byte(versioning), 0o644)
}
