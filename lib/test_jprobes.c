// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests of jprobes (suite "kprobes_jprobe").
 *
 * The probed function takes ten arguments so that some of them are
 * passed on the stack on every architecture we build (six in registers on
 * x86_64, eight on arm64).  Its handlers scribble over their own
 * arguments, in registers and on the stack, as a callee may: the probed
 * function must still see the originals.
 */
#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/atomic.h>
#include <linux/string.h>

#ifdef CONFIG_JPROBES

#define JPT_NARGS	10

static long jpt_seen[JPT_NARGS];
static atomic_t jpt_handler_calls;
static atomic_t jpt_kprobe_calls;
static atomic_t jpt_ret_calls;
static atomic_t jpt_order_bad;
static long jpt_retval;

static noinline __used __noipa long jpt_target(long a, long b, long c, long d, long e,
					       long f, long g, long h, long i, long j)
{
	barrier();
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h +
	       9 * i + 10 * j;
}

static noinline __used __noipa long jpt_other(long x)
{
	barrier();
	return x * 3;
}

static long (*jpt_target_p)(long, long, long, long, long, long, long, long,
			    long, long) = jpt_target;
static long (*jpt_other_p)(long) = jpt_other;

static long jpt_call(long base)
{
	return READ_ONCE(jpt_target_p)(base + 1, base + 2, base + 3, base + 4,
				       base + 5, base + 6, base + 7, base + 8,
				       base + 9, base + 10);
}

static long jpt_expect(long base)
{
	long sum = 0;
	int k;

	for (k = 1; k <= JPT_NARGS; k++)
		sum += k * (base + k);
	return sum;
}

/* The handler: same prototype; records, then clobbers its arguments. */
static long jpt_handler(long a, long b, long c, long d, long e,
			long f, long g, long h, long i, long j)
{
	long args[JPT_NARGS] = { a, b, c, d, e, f, g, h, i, j };

	memcpy(jpt_seen, args, sizeof(args));
	atomic_inc(&jpt_handler_calls);
	/* kprobe pre-handlers at the same address ran before us. */
	if (!atomic_read(&jpt_kprobe_calls))
		atomic_inc(&jpt_order_bad);
	/* The callee owns its stack arguments: overwrite them. */
	WRITE_ONCE(i, -1);
	WRITE_ONCE(j, -1);
	WRITE_ONCE(a, -1);
	jprobe_return();
	return 0;
}

/* A handler that calls another jprobed function: that hit is missed. */
static long jpt_nesting_handler(long a, long b, long c, long d, long e,
				long f, long g, long h, long i, long j)
{
	atomic_inc(&jpt_handler_calls);
	jpt_retval = READ_ONCE(jpt_other_p)(a);
	jprobe_return();
	return 0;
}

static long jpt_other_handler(long x)
{
	atomic_inc(&jpt_handler_calls);
	jprobe_return();
	return 0;
}

/* A handler that forgets jprobe_return(): it must end the same way. */
static long jpt_returning_handler(long a, long b, long c, long d, long e,
				  long f, long g, long h, long i, long j)
{
	atomic_inc(&jpt_handler_calls);
	jpt_seen[9] = j;
	return -12345;
}

static int jpt_kprobe_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&jpt_kprobe_calls);
	return 0;
}

static int jpt_ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&jpt_ret_calls);
	jpt_retval = regs_return_value(regs);
	return 0;
}

static void jpt_reset(void)
{
	memset(jpt_seen, 0, sizeof(jpt_seen));
	atomic_set(&jpt_handler_calls, 0);
	atomic_set(&jpt_kprobe_calls, 0);
	atomic_set(&jpt_ret_calls, 0);
	atomic_set(&jpt_order_bad, 0);
	jpt_retval = 0;
}

static void jpt_init(struct jprobe *jp, void *func, void *entry)
{
	memset(jp, 0, sizeof(*jp));
	jp->kp.addr = (kprobe_opcode_t *)func;
	jp->entry = entry;
}

/* Every argument, in registers and on the stack, reaches the handler. */
static void jpt_arguments(struct kunit *test)
{
	static struct jprobe jp;
	static struct kprobe kp;
	int k;

	jpt_reset();
	jpt_init(&jp, jpt_target, jpt_handler);
	memset(&kp, 0, sizeof(kp));
	kp.addr = (kprobe_opcode_t *)jpt_target;
	kp.pre_handler = jpt_kprobe_pre;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	KUNIT_EXPECT_TRUE(test, jp.kp.flags & KPROBE_FLAG_JPROBE);

	KUNIT_EXPECT_EQ(test, jpt_call(100), jpt_expect(100));
	KUNIT_EXPECT_EQ(test, atomic_read(&jpt_handler_calls), 1);
	for (k = 0; k < JPT_NARGS; k++)
		KUNIT_EXPECT_EQ_MSG(test, jpt_seen[k], 100 + k + 1,
				    "argument %d", k + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&jpt_order_bad), 0);

	/* Many calls in a row: the state is per hit. */
	for (k = 0; k < 50; k++)
		KUNIT_EXPECT_EQ(test, jpt_call(k * 7), jpt_expect(k * 7));
	KUNIT_EXPECT_EQ(test, atomic_read(&jpt_handler_calls), 51);
	KUNIT_EXPECT_EQ(test, jpt_seen[9], 49 * 7 + 10);
	KUNIT_EXPECT_EQ(test, jp.kp.nmissed, 0UL);

	unregister_jprobe(&jp);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, jpt_call(1), jpt_expect(1));
	KUNIT_EXPECT_EQ(test, atomic_read(&jpt_handler_calls), 51);
}

/* A jprobe, a kprobe and a kretprobe on one function. */
static void jpt_with_kretprobe(struct kunit *test)
{
	static struct jprobe jp;
	static struct kprobe kp;
	static struct kretprobe rp;

	jpt_reset();
	jpt_init(&jp, jpt_target, jpt_handler);
	memset(&kp, 0, sizeof(kp));
	kp.addr = (kprobe_opcode_t *)jpt_target;
	kp.pre_handler = jpt_kprobe_pre;
	memset(&rp, 0, sizeof(rp));
	rp.kp.addr = (kprobe_opcode_t *)jpt_target;
	rp.handler = jpt_ret_handler;
	if (!IS_ENABLED(CONFIG_KRETPROBES)) {
		/* Without kretprobes their stub refuses. */
		KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -EOPNOTSUPP);
		return;
	}
	/* The jprobe first: it still runs after the others' pre-handlers. */
	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);

	KUNIT_EXPECT_EQ(test, jpt_call(5), jpt_expect(5));
	KUNIT_EXPECT_EQ(test, atomic_read(&jpt_handler_calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&jpt_kprobe_calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&jpt_ret_calls), 1);
	KUNIT_EXPECT_EQ(test, jpt_retval, jpt_expect(5));
	KUNIT_EXPECT_EQ(test, jpt_seen[0], 6L);
	KUNIT_EXPECT_EQ(test, atomic_read(&jpt_order_bad), 0);

	unregister_kretprobe(&rp);
	unregister_kprobe(&kp);
	unregister_jprobe(&jp);
}

/* A jprobe hit inside a jprobe handler is skipped and counted. */
static void jpt_nested(struct kunit *test)
{
	static struct jprobe outer, inner;

	jpt_reset();
	jpt_init(&outer, jpt_target, jpt_nesting_handler);
	jpt_init(&inner, jpt_other, jpt_other_handler);
	KUNIT_ASSERT_EQ(test, register_jprobe(&outer), 0);
	KUNIT_ASSERT_EQ(test, register_jprobe(&inner), 0);

	KUNIT_EXPECT_EQ(test, jpt_call(0), jpt_expect(0));
	KUNIT_EXPECT_EQ(test, jpt_retval, 3L);
	KUNIT_EXPECT_EQ(test, atomic_read(&jpt_handler_calls), 1);
	KUNIT_EXPECT_EQ(test, inner.kp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, outer.kp.nmissed, 0UL);
	/* Outside a handler the inner one fires. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(jpt_other_p)(4), 12L);
	KUNIT_EXPECT_EQ(test, atomic_read(&jpt_handler_calls), 2);

	unregister_jprobe(&inner);
	unregister_jprobe(&outer);
}

/* Returning from the handler is as good as calling jprobe_return(). */
static void jpt_handler_returns(struct kunit *test)
{
	static struct jprobe jp;
	int k;

	jpt_reset();
	jpt_init(&jp, jpt_target, jpt_returning_handler);
	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	for (k = 0; k < 10; k++)
		KUNIT_EXPECT_EQ(test, jpt_call(k), jpt_expect(k));
	KUNIT_EXPECT_EQ(test, atomic_read(&jpt_handler_calls), 10);
	KUNIT_EXPECT_EQ(test, jpt_seen[9], 9L + 10);
	/* The hits left nothing behind: preemption is enabled again. */
	KUNIT_EXPECT_EQ(test, preempt_count(), 0);
	KUNIT_EXPECT_EQ(test, jp.kp.nmissed, 0UL);
	unregister_jprobe(&jp);
}

static void jpt_enable_disable(struct kunit *test)
{
	static struct jprobe jp;

	jpt_reset();
	jpt_init(&jp, jpt_target, jpt_handler);
	jp.kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	KUNIT_EXPECT_EQ(test, jpt_call(3), jpt_expect(3));
	KUNIT_EXPECT_EQ(test, atomic_read(&jpt_handler_calls), 0);
	KUNIT_EXPECT_EQ(test, enable_jprobe(&jp), 0);
	KUNIT_EXPECT_EQ(test, jpt_call(3), jpt_expect(3));
	KUNIT_EXPECT_EQ(test, atomic_read(&jpt_handler_calls), 1);
	KUNIT_EXPECT_EQ(test, disable_jprobe(&jp), 0);
	KUNIT_EXPECT_EQ(test, jpt_call(3), jpt_expect(3));
	KUNIT_EXPECT_EQ(test, atomic_read(&jpt_handler_calls), 1);
	unregister_jprobe(&jp);
	KUNIT_EXPECT_EQ(test, enable_jprobe(&jp), -EINVAL);
}

static void jpt_refusals(struct kunit *test)
{
	static struct jprobe jp, second;
	struct jprobe *batch[2] = { &jp, &second };

	jpt_init(&jp, jpt_target, NULL);
	KUNIT_EXPECT_EQ(test, register_jprobe(&jp), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_jprobe(NULL), -EINVAL);

	/* Not a function's entry. */
	jpt_init(&jp, (char *)jpt_target + 1, jpt_handler);
	KUNIT_EXPECT_EQ(test, register_jprobe(&jp), -EINVAL);
	jpt_init(&jp, NULL, jpt_handler);
	jp.kp.symbol_name = "jpt_target";
	jp.kp.offset = 1;
	KUNIT_EXPECT_EQ(test, register_jprobe(&jp), -EINVAL);

	/* Unknown symbol. */
	jpt_init(&jp, NULL, jpt_handler);
	jp.kp.symbol_name = "jpt_no_such_function";
	KUNIT_EXPECT_EQ(test, register_jprobe(&jp), -ENOENT);

	/* Handlers of its own kprobe are not the user's to set. */
	jpt_init(&jp, jpt_target, jpt_handler);
	jp.kp.pre_handler = jpt_kprobe_pre;
	KUNIT_EXPECT_EQ(test, register_jprobe(&jp), -EINVAL);

	/* One jprobe per function; a batch failing part-way undoes itself. */
	jpt_init(&jp, jpt_target, jpt_handler);
	jpt_init(&second, jpt_target, jpt_handler);
	KUNIT_EXPECT_EQ(test, register_jprobes(batch, 2), -EBUSY);
	KUNIT_EXPECT_EQ(test, enable_jprobe(&jp), -EINVAL);
	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	KUNIT_EXPECT_EQ(test, register_jprobe(&second), -EBUSY);
	unregister_jprobes(batch, 2);
	KUNIT_EXPECT_EQ(test, register_jprobes(NULL, 1), -EINVAL);
}

static struct kunit_case jpt_cases[] = {
	KUNIT_CASE(jpt_arguments),
	KUNIT_CASE(jpt_with_kretprobe),
	KUNIT_CASE(jpt_nested),
	KUNIT_CASE(jpt_handler_returns),
	KUNIT_CASE(jpt_enable_disable),
	KUNIT_CASE(jpt_refusals),
	{}
};

static struct kunit_suite jpt_suite = {
	.name = "kprobes_jprobe",
	.test_cases = jpt_cases,
};

kunit_test_suites(&jpt_suite);

#endif /* CONFIG_JPROBES */

MODULE_DESCRIPTION("KUnit tests of jprobes");
MODULE_LICENSE("GPL");
