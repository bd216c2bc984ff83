package testenv

import (
	"bytes"
	"io"
)

// Flipping is a seekable body whose bytes change once it has been
// rewound: hashed before sending, it sends other bytes than it hashed (a
// corruption on the way), which a target must refuse.
type Flipping struct {
	r       *bytes.Reader
	rewound bool
}

// NewFlipping is a Flipping body of data.
func NewFlipping(data []byte) *Flipping { return &Flipping{r: bytes.NewReader(data)} }

func (f *Flipping) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if f.rewound && n > 0 {
		p[0] ^= 0xff
	}
	return n, err
}

func (f *Flipping) Seek(off int64, whence int) (int64, error) {
	if whence == io.SeekStart {
		f.rewound = true
	}
	return f.r.Seek(off, whence)
}
