package s3server

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// load rebuilds the index from a data directory an earlier server wrote.
// Bodies without a .meta file are writes that never finished and are
// removed; of two records of one version of a key (a crash between
// writing the new and unlinking the old) the newer wins. Only one server
// may use a directory.
func (d *dirBlobs) load(ctx context.Context) ([]loadedBucket, error) {
	entries, err := os.ReadDir(d.root)
	if err != nil {
		return nil, err
	}
	var out []loadedBucket
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lb, err := d.loadBucket(ctx, e)
		if err != nil {
			return nil, fmt.Errorf("s3server: loading bucket %s from %s: %w", e.Name(), d.root, err)
		}
		out = append(out, lb)
	}
	return out, nil
}

func (d *dirBlobs) loadBucket(ctx context.Context, de os.DirEntry) (loadedBucket, error) {
	var lb loadedBucket
	fi, err := de.Info()
	if err != nil {
		return lb, err
	}
	lb.name, lb.created = de.Name(), fi.ModTime()
	dir := filepath.Join(d.root, de.Name())
	if v, err := os.ReadFile(filepath.Join(dir, versioningFile)); err == nil {
		lb.versioning = string(v)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return lb, err
	}
	type versionOf struct{ key, version string }
	byVersion := map[versionOf]*object{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".meta") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return lb, err
		}
		obj, err := loadObject(filepath.Join(dir, e.Name()))
		if err != nil {
			return lb, err
		}
		if obj == nil {
			continue
		}
		id := versionOf{obj.key, obj.version}
		if prev := byVersion[id]; prev != nil {
			if obj.mod.Before(prev.mod) {
				prev, obj = obj, prev
			}
			d.release(prev)
		}
		byVersion[id] = obj
	}
	kept := map[string]bool{}
	for _, obj := range byVersion {
		if fb, ok := obj.body.(*fileBlob); ok {
			for _, seg := range fb.segs {
				kept[seg.path] = true
			}
		}
		lb.objects = append(lb.objects, obj)
	}
	// The bucket adds each in turn as the newest: oldest first.
	slices.SortFunc(lb.objects, func(x, y *object) int { return x.mod.Compare(y.mod) })
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if strings.HasSuffix(e.Name(), ".data") && !kept[p] {
			_ = os.Remove(p)
		}
	}
	return lb, nil
}

// loadObject reads one .meta file; it returns nil (and removes what is
// left of the object) if any of its segments is missing or has the wrong size.
func loadObject(metaPath string) (*object, error) {
	js, err := os.ReadFile(metaPath)
	if err != nil {
		return nil, err
	}
	var mf metaFile
	if err := json.Unmarshal(js, &mf); err != nil {
		return nil, fmt.Errorf("%s: %w", metaPath, err)
	}
	hash, err := hex.DecodeString(mf.MD5)
	if err != nil {
		return nil, fmt.Errorf("%s: md5: %w", metaPath, err)
	}
	a := &attrs{headers: mf.Meta, tags: mf.Tags, sum: mf.Checksum, partSums: mf.PartSums, sseKey: mf.SSEKey}
	if mf.Marker {
		m := newMarker(mf.Key, mf.Mod)
		m.version, m.record = mf.Version, metaPath
		return m, nil
	}
	parts := mf.PartSizes
	if len(parts) == 0 && mf.Parts > 0 {
		parts = make([]int64, mf.Parts) // written before part sizes were kept
	}
	fb := &fileBlob{meta: metaPath}
	intact := len(mf.Segments) > 0
	for _, sm := range mf.Segments {
		p := filepath.Join(filepath.Dir(metaPath), filepath.Base(sm.File))
		fb.segs = append(fb.segs, fileSeg{path: p, n: sm.Size})
		fb.n += sm.Size
		if fi, err := os.Stat(p); err != nil || fi.Size() != sm.Size {
			intact = false
		}
	}
	if !intact {
		fb.removeFiles()
		return nil, nil
	}
	obj := newObject(mf.Key, fb, hash, parts, a, mf.Mod)
	obj.version = mf.Version
	return obj, nil
}
