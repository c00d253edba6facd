/* test_kallsyms.c — kernel frame names from a kallsyms file: text symbols only, the last symbol
 * at or below an address, nothing far past the last one, and no table when addresses are hidden. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <unistd.h>

#include "../../symtab/kallsyms.h"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

Test(kallsyms, names_by_address)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/v8walk-kallsyms-%d", (int)getpid());
	write_file(path, "ffffffff81000100 T do_syscall_64\n"
			 "ffffffff81000000 T entry_SYSCALL_64\n"
			 "ffffffff81000080 D some_data\n"
			 "ffffffff81000200 t write_null\t[null_blk]\n");
	struct kallsyms k;
	cr_assert(kallsyms_load(&k, path));
	cr_assert_str_eq(kallsyms_name(&k, 0xffffffff81000010), "entry_SYSCALL_64");
	cr_assert_str_eq(kallsyms_name(&k, 0xffffffff81000090), "entry_SYSCALL_64", "data is no function");
	cr_assert_str_eq(kallsyms_name(&k, 0xffffffff81000100), "do_syscall_64");
	cr_assert_str_eq(kallsyms_name(&k, 0xffffffff81000204), "write_null");
	cr_assert_null(kallsyms_name(&k, 0xffffffff80000000), "below every symbol");
	cr_assert_null(kallsyms_name(&k, 0xffffffffa0000000), "far past the last symbol");
	kallsyms_free(&k);
	unlink(path);
}

Test(kallsyms, hidden_addresses_give_no_table)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/v8walk-kallsyms-h-%d", (int)getpid());
	write_file(path, "0000000000000000 T do_syscall_64\n0000000000000000 T entry_SYSCALL_64\n");
	struct kallsyms k;
	cr_assert_not(kallsyms_load(&k, path));
	cr_assert_null(kallsyms_name(&k, 0x1000));
	kallsyms_free(&k);
	unlink(path);
}
