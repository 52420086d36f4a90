/* Peterson's algorithm as in Holzmann, The SPIN Model Checker (2004), with the careless
   variant of peterson.fito (compile with -DCARELESS).
   SPIN twin of: Peterson, -DCARELESS: Careless
   One Promela statement per fito step, so SPIN's "states, stored" is fito's state count
   (the entry test and ncrit++ are one d_step, as they are one guarded step in fito). */
bool turn, flag[2];
byte ncrit;

active [2] proctype user()
{
again:
#ifdef CARELESS
	turn = _pid;
	flag[_pid] = 1;
#else
	flag[_pid] = 1;
	turn = _pid;
#endif
	d_step { (flag[1 - _pid] == 0 || turn == 1 - _pid); ncrit++ };
	assert(ncrit == 1);	/* critical section */
	ncrit--;
	flag[_pid] = 0;
	goto again
}
