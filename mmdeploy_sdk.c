/* mmdeploy_sdk.c - for builds that would rather add a .c file than define MMD_SDK_IMPLEMENTATION.
   Needs -Iinclude, cJSON and stb: cc -c -I. -Iinclude mmdeploy_sdk.c, link -lcjson -lstb. */
#define MMD_SDK_IMPLEMENTATION
#include "mmdeploy_sdk.h"
