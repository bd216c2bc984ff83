//go:build amd64 && !purego

#include "go_asm.h"
#include "textflag.h"

// LANE adds bucket k of the eight: its gap to DX, then its count (the
// 2-bit field at bit sh of BX) to the block at DX+k+1 (off is 8(k+1)).
#define LANE(k, sh, off) \
	MOVBQZX k(SI)(R11*1), AX \
	ADDQ    AX, DX \
	MOVL    BX, R12 \
	SHRL    $sh, R12 \
	ANDL    $3, R12 \
	ADDQ    R12, off(DI)(DX*8)

// func addGroupsAsm(blk *countBlock, gaps, counts, escs *byte, j, wide, at, ei, elen int) (nj, nat int, esc uint, nei int, added uint64)
//
// addGroupsGo (packedsplit_groups.go), step for step. Registers: DI the
// block, SI the gaps, R8 the counts from bucket j's byte on, CX the shift
// of j's among them, R11 j, R9 wide, DX at (then each bucket's place), AX
// the eight gaps, BX their counts, R13 esc, R10 at before the eight. The
// eight are added before their last place is checked: from at below
// histCounts, eight gaps of at most 254 cannot reach past the block. The
// escapes' place ei and what they add are kept in their argument and
// result slots: they are rare.
TEXT ·addGroupsAsm(SB), NOSPLIT, $0-112
	MOVQ blk+0(FP), DI
	MOVQ gaps+8(FP), SI
	MOVQ counts+16(FP), R8
	MOVQ j+32(FP), R11
	MOVQ wide+40(FP), R9
	MOVQ at+48(FP), DX
	MOVQ $0, added+104(FP)
	XORL R13, R13

	// The counts of bucket j on are at R8, shifted right by CX: j moves
	// by eight buckets, R8 by two bytes, and CX stays.
	MOVQ R11, CX
	ANDL $3, CX
	SHLL $1, CX
	MOVQ R11, R10
	SHRQ $2, R10
	ADDQ R10, R8
	CMPQ R11, R9
	JGE  done

loop:
	MOVQ (SI)(R11*1), AX

	// A gap escapes (255): (^w - bytesLow) & w & bytesHigh.
	MOVQ  AX, R10
	NOTQ  R10
	MOVQ  $0xfefefefefefefeff, R12
	ADDQ  R12, R10
	ANDQ  AX, R10
	MOVQ  $0x8080808080808080, R12
	TESTQ R12, R10
	JNZ   done

	// The eight 2-bit counts from bucket j (countsAt).
	MOVL (R8), BX
	SHRL CX, BX
	ANDL $0xffff, BX

	// esc := cw & (cw >> 1) & pairsLow; cw1 := cw + pairsLow - esc.
	MOVL BX, R13
	SHRL $1, R13
	ANDL BX, R13
	ANDL $0x5555, R13
	ADDL $0x5555, BX
	SUBL R13, BX
	MOVQ DX, R10

	// The eight buckets: bucket k's place is at, the gaps up to it and
	// k+1. DX sums the gaps alone and the k+1 is in each address, so
	// that the chain from one place to the next is an ADD (a LEA of
	// three terms takes two cycles).
	MOVBQZX 0(SI)(R11*1), AX
	ADDQ    AX, DX
	MOVL    BX, R12
	ANDL    $3, R12
	ADDQ    R12, 8(DI)(DX*8)
	LANE(1, 2, 16)
	LANE(2, 4, 24)
	LANE(3, 6, 32)
	LANE(4, 8, 40)
	LANE(5, 10, 48)
	LANE(6, 12, 56)
	MOVBQZX 7(SI)(R11*1), AX
	ADDQ    AX, DX
	MOVL    BX, R12
	SHRL    $14, R12
	ADDQ    R12, 64(DI)(DX*8)
	ADDQ    $8, DX

	// The last within the geometry (the block is longer: none of the
	// eight was added past it), or the payload is corrupt.
	CMPQ  DX, $const_histCounts
	JGE   past
	TESTL R13, R13
	JNZ   escaped

next:
	ADDQ $8, R11
	ADDQ $2, R8
	CMPQ R11, R9
	JLT  loop
	JMP  done

past:
	MOVQ R10, DX
	XORL R13, R13
	JMP  done

escaped:
	// Make up the counts that escape, lane by lane, from one-byte
	// escapes: DX (the eights' last place) is kept in nat meanwhile.
	MOVQ DX, nat+80(FP)
	MOVQ ei+56(FP), BX

lane:
	// The lane's place: at, and its gap and those before it, each plus 1.
	BSFQ R13, CX
	SHRQ $1, CX
	ADDQ R11, CX
	MOVQ R10, DX
	MOVQ R11, AX

place:
	MOVBQZX (SI)(AX*1), R12
	LEAQ    1(DX)(R12*1), DX
	INCQ    AX
	CMPQ    AX, CX
	JLE     place

	// Its escape, when it is one byte: the count is 4 and it, 3 of which
	// were added.
	CMPQ    BX, elen+64(FP)
	JGE     escstop
	MOVQ    escs+24(FP), R12
	MOVBQZX (R12)(BX*1), AX
	CMPQ    AX, $0x80
	JGE     escstop
	INCQ    BX
	ADDQ    AX, added+104(FP)
	INCQ    AX
	ADDQ    AX, (DI)(DX*8)
	LEAQ    -1(R13), R12
	ANDQ    R12, R13
	JNZ     lane

	MOVQ BX, ei+56(FP)
	MOVQ nat+80(FP), DX
	MOVQ R11, CX // the counts' shift again
	ANDL $3, CX
	SHLL $1, CX
	JMP  next

escstop:
	// A longer escape: the caller reads it, and those after it.
	MOVQ BX, ei+56(FP)
	MOVQ R10, DX

done:
	MOVQ R11, nj+72(FP)
	MOVQ DX, nat+80(FP)
	MOVQ R13, esc+88(FP)
	MOVQ ei+56(FP), AX
	MOVQ AX, nei+96(FP)
	RET
