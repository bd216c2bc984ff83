package storage_test

import (
	"reflect"
	"testing"

	"github.com/objbench/objbench/storage"
)

// Plus and Minus take every count into account, each on its own: a count
// added to ConnStats and forgotten there fails this.
func TestConnStatsPlusAndMinusEveryCount(t *testing.T) {
	var a, b storage.ConnStats
	va, vb := reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem()
	for i := range va.NumField() {
		va.Field(i).SetUint(uint64(100 * (i + 1)))
		vb.Field(i).SetUint(uint64(i + 1))
	}
	sum, diff := reflect.ValueOf(a.Plus(b)), reflect.ValueOf(a.Minus(b))
	for i := range va.NumField() {
		if got, want := sum.Field(i).Uint(), uint64(101*(i+1)); got != want {
			t.Errorf("Plus: %s %d, want %d", va.Type().Field(i).Name, got, want)
		}
		if got, want := diff.Field(i).Uint(), uint64(99*(i+1)); got != want {
			t.Errorf("Minus: %s %d, want %d", va.Type().Field(i).Name, got, want)
		}
	}
}
