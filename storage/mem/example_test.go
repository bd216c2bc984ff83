package mem_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
)

func ExampleNew() {
	ctx := context.Background()
	s := mem.New()
	if _, err := s.Put(ctx, "greeting", strings.NewReader("hello, world"), 12, storage.PutOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := s.Get(ctx, "greeting", storage.GetOptions{Range: &storage.Range{Offset: 7, Length: -1}}, os.Stdout); err != nil {
		fmt.Println(err)
	}
	fmt.Println()
	// Output: world
}
