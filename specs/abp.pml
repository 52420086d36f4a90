/* The alternating bit protocol over a lossy link, as abp.fito writes it: buffered
   channels of one slot, a link that passes each message on or loses it, a sender that
   sends again when no acknowledgement waits (Holzmann 1991, ch. 14, without the
   timeout statement). Compile with -DGULLIBLE for the receiver that ignores the bit.
   SPIN twin of: ABP, -DGULLIBLE: Broken
   One Promela statement per fito step: the sender's receive and its update are one
   d_step (fito's receive makes the call with the new values); the receiver selects by the
   bit (eval) as fito's decided guard does; values fito no longer holds (a received message
   once passed on) are reset to 0 so that they do not split states. */
chan s2m = [1] of { byte, bit };
chan m2r = [1] of { byte, bit };
chan r2m = [1] of { bit };
chan m2s = [1] of { bit };

active proctype Forward() {
	byte d; bit b;
	do
	:: s2m?d,b ->
	   if
	   :: d_step { m2r!d,b; d = 0; b = 0 }
	   :: d_step { d = 0; b = 0 }	/* lost */
	   fi
	od
}

active proctype Backward() {
	bit b;
	do
	:: r2m?b ->
	   if
	   :: d_step { m2s!b; b = 0 }
	   :: b = 0	/* lost */
	   fi
	od
}

active proctype Sender() {
	bit b = 0, a; byte d = 0;
	do
	:: s2m!d,b;
	   if
	   :: d_step { m2s?a; if :: a == b -> b = 1 - b; d = (d + 1) % 3 :: else fi; a = 0 }
	   :: empty(m2s)	/* timeout: send again */
	   fi
	od
}

active proctype Receiver() {
	bit e = 0; byte d, next = 0;
	do
#ifdef GULLIBLE
	:: m2r?d,e -> assert(d == next); d_step { r2m!e; next = (next + 1) % 3; d = 0; e = 0 }
#else
	:: m2r?d,eval(e) -> assert(d == next); d_step { r2m!e; e = 1 - e; next = (next + 1) % 3; d = 0 }
	:: m2r?_,eval(1 - e) -> r2m!(1 - e)
#endif
	od
}
