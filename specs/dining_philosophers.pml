/* Roscoe's dining philosophers (dining_philosophers.fito) in Promela: each philosopher
   takes the fork on its left, then the one on its right; -DFOOTMAN lets at most N - 1 sit.
   SPIN reports the deadlock as an invalid end state.
   SPIN twin of: College, -DFOOTMAN: Served
   One Promela statement per philosopher's event (a printf stands for an event no fork or
   footman takes part in; picking a fork up is one d_step), so SPIN's "states, stored" is
   fito's state count. */
#define N 3
bool taken[N];
byte seated;

active [N] proctype phil() {
	byte i = _pid;
	do
	:: printf("thinks %d\n", i);
#ifdef FOOTMAN
	   d_step { seated < N - 1 -> seated++ };	/* sits */
#else
	   printf("sits %d\n", i);
#endif
	   d_step { !taken[i] -> taken[i] = 1 };
	   d_step { !taken[(i + 1) % N] -> taken[(i + 1) % N] = 1 };
	   printf("eats %d\n", i);
	   taken[(i + 1) % N] = 0;
	   taken[i] = 0;
#ifdef FOOTMAN
	   seated--	/* gets up */
#else
	   printf("getsup %d\n", i)
#endif
	od
}
