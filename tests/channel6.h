/* channel6.h - one extra line for the engine's channel list, force-included
 * (-include) when the core is rebuilt for tests/channel6-test.c. The channel
 * itself, ch_toy_ops, is defined in that test program: adding a channel is
 * its file and this one line. */
#define MS_EXTRA_CHANNELS(_) _(TOY, toy)
