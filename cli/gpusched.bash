# bash completion of gpusched (installed by cmake --install in
# share/bash-completion/completions/gpusched). Verbs and sub-verbs are listed here (as in
# cli/main.c); the options of a verb are read from its own --help, so they stay in sync.
_gpusched() {
	local cur=${COMP_WORDS[COMP_CWORD]}
	local verbs="run report plot trace explain compare plan cluster real config export help"
	if [ "$COMP_CWORD" -eq 1 ]; then
		mapfile -t COMPREPLY < <(compgen -W "$verbs --help --version" -- "$cur")
		return
	fi
	local verb=${COMP_WORDS[1]} sub=""
	case "$verb" in
	trace | cluster | config)
		if [ "$COMP_CWORD" -eq 2 ]; then
			local subs="import"
			[ "$verb" = trace ] && subs="validate stats import gen"
			mapfile -t COMPREPLY < <(compgen -W "$subs --help" -- "$cur")
			return
		fi
		sub=${COMP_WORDS[2]}
		;;
	esac
	if [[ "$cur" == -* ]]; then
		local opts
		# shellcheck disable=SC2086
		opts=$("${COMP_WORDS[0]}" $verb $sub --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		return
	fi
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -F _gpusched gpusched
