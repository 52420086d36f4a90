/* Chang and Roberts' leader election, as leader_election.fito writes it; -DNODROP passes
   every identifier on (the Gossip process).
   SPIN twin of: Ring, -DNODROP: Chatty
   fito states = SPIN states + 1 (fito's terminated state: every node has ended)
   One Promela statement per fito step: a branch's test and its first action are one
   d_step, as they are one guarded step in fito; a node that has ended takes one more step
   (the printf), as fito's SKIP does (its termination inside |||), then blocks. */
#define N 3
mtype = { one, winner };
chan ring[N] = [N] of { mtype, byte };
byte leaders;

active [N] proctype node() {
	byte uid = (2 * _pid) % N + 1, known = 0, v;
	mtype k;
	ring[(_pid + 1) % N]!one, uid;
	do
	:: ring[_pid]?k, v ->
	   if
#ifdef NODROP
	   :: d_step { k == one && v != uid -> ring[(_pid + 1) % N]!one, v }
#else
	   :: d_step { k == one && v > uid -> ring[(_pid + 1) % N]!one, v }
	   :: k == one && v < uid
#endif
	   :: d_step { k == one && v == uid -> leaders++ }; assert(leaders == 1);
#ifndef NODROP
	      ring[(_pid + 1) % N]!winner, v
	   :: d_step { k == winner && v == uid -> known = v }; assert(known == N); break
	   :: d_step { k == winner && v != uid -> known = v }; assert(known == N);
	      ring[(_pid + 1) % N]!winner, v; break
#endif
	   fi
	od;
	printf("node %d ends\n", _pid);
end:	(false)
}
