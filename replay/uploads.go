package replay

// maxUploads bounds the multipart uploads whose part sizes are summed at
// once; beyond it the oldest is forgotten (its completion then has size 0,
// unknown).
const maxUploads = 10000

// uploads sums the parts of open multipart uploads, for sources whose
// completion event does not give the object's size.
type uploads struct {
	bytes map[string]int64
	order []string // insertion order, for forgetting the oldest
}

func (u *uploads) part(bucket, key string, n int64) {
	if u.bytes == nil {
		u.bytes = map[string]int64{}
	}
	id := bucket + "/" + key
	if _, ok := u.bytes[id]; !ok {
		if len(u.bytes) >= maxUploads {
			for len(u.order) > 0 {
				old := u.order[0]
				u.order = u.order[1:]
				if _, ok := u.bytes[old]; ok {
					delete(u.bytes, old)
					break
				}
			}
		}
		u.order = append(u.order, id)
	}
	u.bytes[id] += n
}

// complete returns the bytes the upload's parts carried, and forgets it.
func (u *uploads) complete(bucket, key string) int64 {
	id := bucket + "/" + key
	n := u.bytes[id]
	delete(u.bytes, id)
	if len(u.order) > 2*maxUploads { // drop the ids of completed uploads
		live := u.order[:0]
		for _, k := range u.order {
			if _, ok := u.bytes[k]; ok {
				live = append(live, k)
			}
		}
		u.order = live
	}
	return n
}
