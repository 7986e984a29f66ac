/* mmdeploy.c - for builds that would rather add a .c file than define MMD_IMPLEMENTATION. */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
