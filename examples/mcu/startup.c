/* startup.c - bare-metal start for the Cortex-M demo: vector table, reset handler, fault
   handler, the two Arm semihosting calls the demo needs (write a string, exit) and SysTick as a
   cycle counter (every core here has it). No C
   library start code is linked (-nostartfiles): this file is all that runs before main. */
#include <stdint.h>

#include "mcu.h"

extern uint32_t mcu_data_start, mcu_data_end, mcu_data_load, mcu_bss_start, mcu_bss_end, mcu_stack_bottom,
    mcu_stack_top;
int main(void);

/* Semihosting: the debugger (here QEMU) handles "bkpt 0xAB" with the operation in r0 and its
   argument in r1. */
static uint32_t mcu_semihost(uint32_t op, const void *arg) {
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void mcu_write(const char *text) { mcu_semihost(0x04u /* SYS_WRITE0 */, text); }

void mcu_exit(int status) {
    /* On 32-bit Arm, SYS_EXIT takes the reason itself: ApplicationExit is exit status 0,
       RunTimeErrorUnknown any other. */
    mcu_semihost(0x18u /* SYS_EXIT */, (const void *)(uintptr_t)(status == 0 ? 0x20026u : 0x20023u));
    for (;;) {}
}

static void mcu_fault(void) {
    mcu_write("mcu: fault\n");
    mcu_exit(1);
}

/* The stack below the reset handler's frame is painted with this, so that what main's calls
   overwrote shows how deep they went. */
#define MCU_PAINT 0xa5a5a5a5u

uint32_t mcu_stack_used(void) {
    const uint32_t *p = &mcu_stack_bottom;
    while (p < &mcu_stack_top && *p == MCU_PAINT) ++p;
    return (uint32_t)((uintptr_t)&mcu_stack_top - (uintptr_t)p);
}

/* SysTick's registers: control and status, reload value, current value. */
#define MCU_SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define MCU_SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define MCU_SYST_CVR (*(volatile uint32_t *)0xE000E018u)

uint32_t mcu_ticks(void) { return MCU_SYST_CVR; }

void mcu_reset(void) {
    uint32_t *src = &mcu_data_load, *dst, sp;
#if defined(__ARM_FP)
    /* Full access to coprocessors 10 and 11 (the FPU) before any floating-point instruction. */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    for (dst = &mcu_data_start; dst < &mcu_data_end;) *dst++ = *src++;
    for (dst = &mcu_bss_start; dst < &mcu_bss_end;) *dst++ = 0;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (dst = &mcu_stack_bottom; (uintptr_t)dst < sp - 64;) *dst++ = MCU_PAINT;
    /* The whole 24-bit range, counting the processor clock (CLKSOURCE 1, ENABLE 1, no
       interrupt). */
    MCU_SYST_RVR = 0xFFFFFFu;
    MCU_SYST_CVR = 0;
    MCU_SYST_CSR = 5u;
    mcu_exit(main());
}

/* Initial stack pointer, then the handlers: reset, NMI, hard fault, memory management, bus
   and usage fault. The demo enables no interrupt, so the table stops there. */
__attribute__((section(".vectors"), used)) static void (*const mcu_vectors[7])(void) = {
    (void (*)(void))(uintptr_t)&mcu_stack_top, mcu_reset, mcu_fault, mcu_fault, mcu_fault, mcu_fault, mcu_fault,
};
