/* Roscoe's dining philosophers (dining_philosophers.fito) in Promela: each philosopher
   takes the fork on its left, then the one on its right; -DFOOTMAN lets at most N - 1 sit.
   SPIN reports the deadlock as an invalid end state. */
#define N 3
bool taken[N];
byte seated;

active [N] proctype phil() {
	byte i = _pid;
	do
	:: /* thinks */
#ifdef FOOTMAN
	   atomic { seated < N - 1 -> seated++ };
#endif
	   atomic { !taken[i] -> taken[i] = 1 };
	   atomic { !taken[(i + 1) % N] -> taken[(i + 1) % N] = 1 };
	   /* eats */
	   taken[(i + 1) % N] = 0;
	   taken[i] = 0;
#ifdef FOOTMAN
	   seated--
#endif
	od
}
