// SPDX-License-Identifier: GPL-2.0
/*
 * A preload object for the gate's kernel builds (build-kernel.sh): every
 * private anonymous mapping of a megabyte or more that a process of the
 * build makes with mmap() is marked MADV_HUGEPAGE, so that where
 * transparent huge pages are given on request only ("madvise", Debian's
 * default) the compiler's heap gets them anyway.
 *
 * Why: cc1 takes its garbage-collected heap from mmap() in 2 MB pieces and
 * touches some 100 MB compiling one kernel object; in 4 KB pages that is
 * some 23,000 page faults per object, a fifth of a cold build's CPU on a
 * virtual machine where a fault costs microseconds, and as many TLB
 * misses.  With huge pages a cold kernel builds about 30% faster here
 * (Documentation/gate.md has the figures).  glibc's malloc is asked the same
 * through its tunable glibc.malloc.hugetlb=1, which build-kernel.sh sets.
 *
 * Nothing is built differently: the advice changes how memory is mapped,
 * never what a program computes.  Where the kernel has no transparent huge
 * pages, madvise() fails and the mapping stays as it was.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/types.h>

#define HUGEPAGE_HEAP_MIN (1UL << 20)

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static mmap_fn next;
	void *p;

	if (!next)
		next = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
	p = next(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && len >= HUGEPAGE_HEAP_MIN &&
	    (flags & (MAP_ANONYMOUS | MAP_PRIVATE)) == (MAP_ANONYMOUS | MAP_PRIVATE))
		madvise(p, len, MADV_HUGEPAGE);
	return p;
}
