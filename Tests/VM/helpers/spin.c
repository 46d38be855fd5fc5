/* spin: burns one CPU until killed (the busy process of the cgroup scenarios). */
int main(void) {
    volatile unsigned long n = 0;
    for (;;) n++;
}
