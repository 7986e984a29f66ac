/* mcu.h - what the demo's files share: the semihosting output of startup.c and the test inputs
   build/mcu/digits_inputs.c holds (written by mcu_host from tests/data/digits_test_x.npy). */
#ifndef MCU_H
#define MCU_H
#include <stdint.h>

/* Writes a NUL-terminated string to the host's stdout. */
void mcu_write(const char *text);
/* Ends the program: QEMU exits with status 0 for 0, 1 otherwise. */
void mcu_exit(int status);
/* Bytes of stack used so far, the start code included (it paints the stack at reset). */
uint32_t mcu_stack_used(void);
/* SysTick's count, started at reset: processor clock cycles counting down from 2^24 - 1 and
   wrapping, so (t0 - t1) & 0xFFFFFF is the cycles between two reads less than 2^24 apart. Under
   QEMU it follows the virtual clock: with -icount shift=0, one nanosecond an instruction. */
uint32_t mcu_ticks(void);

#define MCU_PIXELS 64                /* one 1x1x8x8 digit */
extern const int32_t mcu_sample_count;
extern const float mcu_samples[][MCU_PIXELS];
extern const uint8_t mcu_labels[];

#endif
