/* Chang and Roberts' leader election, as leader_election.fito writes it; -DNODROP passes
   every identifier on (the Gossip process). */
#define N 3
mtype = { one, winner };
chan ring[N] = [N] of { mtype, byte };
byte leaders;

proctype node(byte i) {
	byte uid = (2 * i) % N + 1, known = 0, v;
	mtype k;
	ring[(i + 1) % N]!one, uid;
	do
	:: ring[i]?k, v ->
	   if
#ifdef NODROP
	   :: k == one && v != uid -> ring[(i + 1) % N]!one, v
#else
	   :: k == one && v > uid -> ring[(i + 1) % N]!one, v
	   :: k == one && v < uid -> skip
#endif
	   :: k == one && v == uid ->
	      leaders++; assert(leaders == 1); ring[(i + 1) % N]!winner, v
	   :: k == winner ->
	      known = v; assert(known == N);
	      if :: v == uid -> break :: else -> ring[(i + 1) % N]!winner, v; break fi
	   fi
	od
}

init {
	atomic { run node(0); run node(1); run node(2) }
}
