/* The alternating bit protocol over a lossy link, as abp.fito writes it: buffered
   channels of one slot, a link that passes each message on or loses it, a sender that
   sends again when no acknowledgement waits (Holzmann 1991, ch. 14, without the
   timeout statement). Compile with -DGULLIBLE for the receiver that ignores the bit. */
chan s2m = [1] of { byte, bit };
chan m2r = [1] of { byte, bit };
chan r2m = [1] of { bit };
chan m2s = [1] of { bit };

active proctype Forward() {
	byte d; bit b;
	do
	:: s2m?d,b -> if :: m2r!d,b :: skip fi
	od
}

active proctype Backward() {
	bit b;
	do
	:: r2m?b -> if :: m2s!b :: skip fi
	od
}

active proctype Sender() {
	bit b = 0, a; byte d = 0;
	do
	:: s2m!d,b;
	   if
	   :: m2s?a -> if :: a == b -> b = 1 - b; d = (d + 1) % 3 :: else -> skip fi
	   :: empty(m2s) -> skip
	   fi
	od
}

active proctype Receiver() {
	bit e = 0, b; byte d, next = 0;
	do
	:: m2r?d,b ->
#ifdef GULLIBLE
	   assert(d == next); next = (next + 1) % 3; r2m!b
#else
	   if
	   :: b == e -> assert(d == next); r2m!b; e = 1 - e; next = (next + 1) % 3
	   :: b != e -> r2m!b
	   fi
#endif
	od
}
